// The report's HTML: the scenario's inputs, a panel's section (its curated
// tables, formulas), and the recommendation memo. Plain functions of the
// scenario and the sections; the layout places them on pages.
#pragma once

#include <QString>
#include <QStringList>

#include "ReportSection.h"

namespace napkin {

struct BudgetView;
struct Scenario;
struct ResolvedPlan;

QString reportEscape(const QString& s);
// The cover's headline: C → (N, D), days, dollars and the recommendation.
QString headlineHtml(const BudgetView& view);
// Every input of the scenario, in three columns.
QString inputsHtml(const Scenario& s, const ResolvedPlan& plan);
// A panel's section: "n. Title", its summary, tables (with verdict badges), formulas.
// A panel's section as blocks the layout can page between (title and first
// tables, each further row of tables, the formulas).
QStringList sectionBlocks(int number, const ReportSection& section);
// The recommendation memo: what to train, the loss forecast, servability,
// cost and energy, the checks.
QString memoHtml(const BudgetView& view);

}  // namespace napkin
