// Phase 01 commands: fit (a parametric law from a CSV ladder, with a
// bootstrap interval) and isoflops (the IsoFLOPs method on a synthetic ladder).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "cli_common.h"
#include "cli_long_run.h"
#include "cli_scaling.h"
#include "csv_ladder.h"
#include "format.h"
#include "isoflops_view.h"
#include "law_json.h"
#include "read_file.h"
#include "scaling.h"
#include "validate.h"

namespace napkin::cli {

namespace {

// 100,000 resamples put 2,500 in each tail of a 95 % percentile interval;
// more do not move it. (About 2 CPU-minutes on the 245-point Chinchilla ladder;
// the cost grows with the ladder.)
constexpr std::int64_t kMaxBootstrap = 100'000;

// "; check line 3 (N = 1, …)" for the rows far from the rest of the ladder
// (ladder_outliers), by their line in the file, else "; check the ladder's
// rows".
std::string check_rows(const CsvLadder& ladder) {
  std::string rows;
  for (const LadderOutlier& o : ladder_outliers(ladder.points)) {
    const std::int64_t line = o.index < ladder.point_lines.size() ? ladder.point_lines[o.index] : 0;
    rows += (rows.empty() ? "line " : ", line ") + std::to_string(line) + " (" +
            describe_outlier(o) + ")";
  }
  return rows.empty() ? "; check the ladder's rows" : "; check " + rows;
}

// Refuses a compute-optimal model at the target under one parameter or one
// token (the fit itself refuses a law that is not physical on the ladder:
// law_not_physical()).
void require_physical(const ComputeOptimum& opt, const CsvLadder& ladder) {
  std::vector<std::string> why;
  if (!(opt.n_params >= 1))
    why.push_back("N_opt = " + format_sci(opt.n_params, 2) + " params (must be at least 1)");
  if (!(opt.n_tokens >= 1))
    why.push_back("D_opt = " + format_sci(opt.n_tokens, 2) + " tokens (must be at least 1)");
  if (why.empty()) return;
  std::string m = "the fit is not physical: ";
  for (std::size_t i = 0; i < why.size(); ++i) m += (i ? "; " : "") + why[i];
  throw std::invalid_argument(m + check_rows(ladder));
}

// What `fit` was asked: the ladder file and how to read it, the fit, the
// target and the law file to write.
struct FitRequest {
  bool json = false;
  std::string path;
  CsvLadderOptions csv;
  FitOptions fit;
  double target_flops = 0;
  std::optional<std::int64_t> bootstrap;
  std::int64_t seed = 0;
  double max_seconds = 0;
  std::optional<std::string> law_out;
};

FitRequest read_fit_flags(Args& a) {
  FitRequest r;
  r.json = a.flag("--json");
  CsvLadderOptions& csv = r.csv;
  r.path = a.required_text("--csv");
  csv.n_column = a.text("--n-col", "N");
  const auto d_col = a.value("--d-col");
  const auto c_col = a.value("--c-col");
  if (d_col && c_col)
    throw UsageError("give --d-col (tokens) or --c-col (training FLOPs), not both");
  if (d_col) csv.d_column = *d_col;
  if (c_col) csv.c_column = *c_col;
  csv.loss_column = a.text("--loss-col", "loss");
  csv.max_loss = a.optional_real("--max-loss", 1e-9, 1e6, "nats/token");
  // Strict by default: a script that fits a ladder should fail on a bad row,
  // not fit a different set of runs; --skip-bad-rows lists what it skips.
  csv.skip_bad_rows = a.flag("--skip-bad-rows");
  r.fit.estimator = parse_estimator(a.choice_input("isoflops.fit.estimator"));
  // δ, the target and the seed take what the IsoFLOPs panel and the scenario
  // file take (inputs.h).
  r.fit.huber_delta = a.input("isoflops.fit.huber_delta", "--delta");
  r.target_flops = a.input("isoflops.target.manual_target_flops", "--target-flops");
  r.bootstrap = a.optional_integer("--bootstrap", 1, kMaxBootstrap, "resamples");
  r.seed = a.count_input("isoflops.seed", "--seed");
  r.max_seconds = a.real("--max-seconds", 0, 0, 1e7, "s (0: no limit)");
  r.law_out = a.value("-o");
  if (!r.law_out) r.law_out = a.value("--output");
  if (r.law_out && r.law_out->empty()) throw UsageError("-o needs a file name");
  a.finish();
  return r;
}

// The ladder from its file or standard input, its bytes reported to `run`: a
// large file shows progress and stops on Ctrl+C or --max-seconds mid-read.
CsvLadder read_ladder(FitRequest& r, LongRun& run) {
  r.csv.progress = [&run](std::int64_t done, std::int64_t total) {
    return run.keep_going(done, total);
  };
  CsvLadder ladder;
  try {
    if (r.path == "-") {
      // Standard input: a pipe, a redirected file or a terminal (ended by Ctrl+D).
      std::string text, error;
      if (!read_fd_capped(STDIN_FILENO, "standard input", r.csv.max_bytes, &text, &error,
                          r.csv.progress)) {
        run.stop_reason();  // stopped: say why
        throw UsageError("--csv -: " + error);
      }
      ladder = parse_csv_ladder(text, "standard input", r.csv);
    } else {
      ladder = load_csv_ladder(r.path, r.csv);
    }
  } catch (const csv::Stopped&) {
    run.stop_reason();
    throw;
  }
  run.update(0);  // a ladder that took the whole budget to read stops here
  return ladder;
}

// The fitted law, its bootstrap when asked, and the optimum at the target.
struct FitAnswer {
  FitResult fit;
  std::optional<BootstrapResult> bootstrap;
  ComputeOptimum optimum;
};

FitAnswer fit_ladder(FitRequest& r, const CsvLadder& ladder, LongRun& run) {
  run.stage("fit steps", 0);
  FitAnswer ans;
  r.fit.progress = [&run](std::int64_t done, std::int64_t total) {
    return run.keep_going(done, total);
  };
  try {
    if (r.bootstrap) {
      BootstrapOptions bo;
      bo.resamples = static_cast<int>(*r.bootstrap);
      bo.seed = static_cast<std::uint64_t>(r.seed);
      bo.fit = r.fit;
      bo.min_successful = std::min(10, bo.resamples);
      bool resampling = false;
      ans.bootstrap =
          bootstrap_forecast(ladder.points, r.target_flops, bo, [&](int done, int total) {
            if (!resampling) run.stage("bootstrap resamples", total);
            resampling = true;
            return run.keep_going(done);
          });
      ans.fit = ans.bootstrap->fit;
    } else {
      ans.fit = fit_parametric(ladder.points, r.fit);
    }
  } catch (const Cancelled&) {
    run.stop_reason();
    throw;
  } catch (const NotPhysical& e) {
    // A law the ladder does not determine: name the rows that may be typos.
    throw std::invalid_argument(e.reason + check_rows(ladder));
  }
  ans.optimum = analytic_optimum(ans.fit.law, r.target_flops);
  require_physical(ans.optimum, ladder);
  return ans;
}

// The law file: the constants, the largest run of the ladder (how far a
// forecast extrapolates) and the bootstrap draws (the forecast's interval).
void save_fitted_law(const FitRequest& r, const CsvLadder& ladder, const FitAnswer& ans) {
  double max_flops = 0;
  for (const LadderPoint& p : ladder.points)
    max_flops = std::max({max_flops, p.budget_flops, 6.0 * p.n_params * p.n_tokens});
  const std::string origin =
      r.path == "-" ? "standard input" : std::filesystem::path(r.path).filename().string();
  const PlanLaw law =
      fitted_plan_law(ans.fit.law, ans.bootstrap ? ans.bootstrap->laws : std::vector<LossLaw>{},
                      origin, max_flops, 0.95);
  save_plan_law_file(*r.law_out, law, to_string(ans.fit.estimator), ans.fit.n_points);
}

QJsonObject fit_json(const FitRequest& r, const CsvLadder& ladder, const FitAnswer& ans) {
  const FitResult& f = ans.fit;
  const ComputeOptimum& opt = ans.optimum;
  QJsonObject o{
      {"E", f.law.E},
      {"A", f.law.A},
      {"alpha", f.law.alpha},
      {"B", f.law.B},
      {"beta", f.law.beta},
      {"objective", f.objective},
      {"n_points", json_int(f.n_points)},
      {"rows", json_int(ladder.rows)},
      {"rows_filtered", json_int(ladder.rows_filtered)},
      {"rows_skipped", json_int(static_cast<std::int64_t>(ladder.skipped.size()))},
      {"estimator", QString::fromUtf8(to_string(f.estimator).data(),
                                      static_cast<qsizetype>(to_string(f.estimator).size()))},
      {"converged", f.converged},
      {"target_flops", r.target_flops},
      {"n_opt", opt.n_params},
      {"d_opt", opt.n_tokens},
      {"loss_at_target", opt.loss}};
  if (r.csv.skip_bad_rows) {
    QJsonArray skipped;
    for (const CsvSkippedRow& s : ladder.skipped)
      skipped.append(QJsonObject{{"line", json_int(s.line)},
                                 {"reason", QString::fromUtf8(to_string(s.reason).data())},
                                 {"column", QString::fromStdString(s.column)},
                                 {"message", QString::fromStdString(s.message)}});
    o["skipped"] = skipped;
  }
  if (const auto& b = ans.bootstrap) {
    o["ci_low"] = b->ci_low;
    o["ci_high"] = b->ci_high;
    o["bootstrap_median"] = b->median;
    o["bootstrap_successful"] = json_int(b->n_successful);
  }
  return o;
}

void print_fit(const FitRequest& r, const CsvLadder& ladder, const FitAnswer& ans) {
  const FitResult& f = ans.fit;
  const ComputeOptimum& opt = ans.optimum;
  std::printf("Parametric fit of %s (%s)\n", ladder.source.c_str(),
              std::string(to_string(f.estimator)).c_str());
  row("points", format_grouped(static_cast<std::int64_t>(f.n_points)) + " of " +
                    format_grouped(ladder.rows) + " rows" +
                    (ladder.rows_filtered
                         ? " (" + format_grouped(ladder.rows_filtered) + " dropped by --max-loss)"
                         : ""));
  if (!ladder.skipped.empty()) {
    row("skipped rows",
        format_grouped(static_cast<std::int64_t>(ladder.skipped.size())) + " (--skip-bad-rows):");
    constexpr std::size_t kShown = 20;
    for (std::size_t i = 0; i < ladder.skipped.size() && i < kShown; ++i) {
      const CsvSkippedRow& s = ladder.skipped[i];
      std::printf("    line %lld, %s: %s\n", static_cast<long long>(s.line),
                  std::string(to_string(s.reason)).c_str(), s.message.c_str());
    }
    if (ladder.skipped.size() > kShown)
      std::printf("    … and %zu more\n", ladder.skipped.size() - kShown);
  }
  row("E (irreducible)", format_grouped(f.law.E, 4) + " nats/token");
  row("A, alpha", format_grouped(f.law.A, 2) + ", " + format_grouped(f.law.alpha, 4));
  row("B, beta", format_grouped(f.law.B, 2) + ", " + format_grouped(f.law.beta, 4));
  row("objective", format_sci(f.objective, 6));
  if (f.estimator == Estimator::seed_cd)
    row("note", "the seed's coordinate descent is a toy: it does not converge");
  std::printf("\nAt C = %s FLOPs (compute-optimal under the fit)\n",
              format_sci(r.target_flops).c_str());
  row("N_opt", format_count(opt.n_params, 2) + " params");
  row("D_opt", format_count(opt.n_tokens, 2) + " tokens (" +
                   format_grouped(opt.tokens_per_param(), 1) + " tokens/param)");
  row("loss", format_grouped(opt.loss, 4) + " nats/token");
  if (const auto& b = ans.bootstrap)
    row("95 % bootstrap interval", "[" + format_grouped(b->ci_low, 4) + ", " +
                                       format_grouped(b->ci_high, 4) + "] nats/token (" +
                                       format_grouped(static_cast<std::int64_t>(b->n_successful)) +
                                       " resamples)");
}

int run_fit(Args& a) {
  FitRequest r = read_fit_flags(a);
  // One clock for the whole command: reading the ladder, the fit and its
  // bootstrap (--max-seconds, Ctrl+C and the progress line cover them all).
  LongRun run("bytes of the ladder", 0, r.json, r.max_seconds);
  const CsvLadder ladder = read_ladder(r, run);
  const FitAnswer ans = fit_ladder(r, ladder, run);
  if (r.law_out) save_fitted_law(r, ladder, ans);
  if (r.json)
    print_json(fit_json(r, ladder, ans));
  else
    print_fit(r, ladder, ans);
  return 0;
}

int run_isoflops(Args& a) {
  if (const auto path = a.value("--scenario")) return run_isoflops_scenario(a, *path);
  const bool json = a.flag("--json");
  SyntheticLadderSpec spec;
  // The seed, the noise, the bias and the target take what the IsoFLOPs panel
  // and the scenario file take (inputs.h); no --bias is no bias.
  spec.seed = static_cast<std::uint64_t>(a.count_input("isoflops.seed", "--seed"));
  spec.noise = a.input("isoflops.ladder.synthetic.noise", "--noise");
  spec.lr_decay_bias_nats =
      a.optional_input("isoflops.ladder.synthetic.bias_nats", "--bias").value_or(0.0);
  spec.bias_mode = parse_bias_mode(a.choice_input("isoflops.ladder.synthetic.bias_mode"));
  if (auto budgets = a.real_list("--budgets", 1e6, 1e40, "FLOPs")) spec.budgets_flops = *budgets;
  const auto target = a.optional_input("isoflops.target.manual_target_flops", "--target-flops");
  a.finish();
  if (spec.budgets_flops.size() < 2) throw UsageError("--budgets needs at least 2 budgets");

  // The same view the IsoFLOPs panel draws: a budget whose parabola has no
  // vertex is skipped and said why; the exponents need two vertices.
  const IsoflopsView view = make_isoflops_view(
      synthetic_ladder(spec),
      target.value_or(*std::max_element(spec.budgets_flops.begin(), spec.budgets_flops.end())));
  if (!view.exponents)
    throw std::invalid_argument(view.exponent_error +
                                (view.skipped.empty() ? "" : "; skipped " + view.skipped.front()) +
                                "; lower --noise or --bias");
  const ScalingExponents& e = *view.exponents;
  // N_opt and D_opt grow with compute: an exponent ≤ 0 is noise, not a law.
  if (!(e.a > 0) || !(e.b > 0))
    throw std::invalid_argument("the exponents are not physical: a = " + format_grouped(e.a, 4) +
                                ", b = " + format_grouped(e.b, 4) +
                                " (N_opt ∝ C^a and D_opt ∝ C^b need a > 0 and b > 0); lower "
                                "--noise or --bias");

  if (json) {
    QJsonObject out = isoflops_optima_json(view);
    if (target) {
      out["target_flops"] = *target;
      out["n_opt"] = view.n_opt ? QJsonValue(*view.n_opt) : QJsonValue();
      out["d_opt"] = view.d_opt ? QJsonValue(*view.d_opt) : QJsonValue();
      out["extrapolation_decades"] = view.extrapolation_decades;
    }
    print_json(out);
    return 0;
  }
  std::printf("IsoFLOPs on a synthetic Chinchilla ladder (seed %llu, noise %s, bias %s nats %s)\n",
              static_cast<unsigned long long>(spec.seed), format_grouped(spec.noise, 4).c_str(),
              format_grouped(spec.lr_decay_bias_nats, 3).c_str(),
              std::string(to_string(spec.bias_mode)).c_str());
  print_isoflops_optima(view);
  if (target) {
    std::printf("\nAt C* = %s FLOPs (%s decades beyond the largest budget)\n",
                format_sci(*target).c_str(), format_grouped(view.extrapolation_decades, 2).c_str());
    row("N_opt = k·C^a", view.n_opt ? format_count(*view.n_opt, 2) + " params" : "n/a");
    row("D_opt = k·C^b", view.d_opt ? format_count(*view.d_opt, 2) + " tokens" : "n/a");
  }
  return 0;
}

}  // namespace

QJsonObject isoflops_optima_json(const IsoflopsView& view) {
  QJsonArray arr;
  for (const auto& o : view.optima)
    arr.append(QJsonObject{{"flops", o.budget_flops},
                           {"n_opt", o.n_opt},
                           {"d_opt", o.d_opt},
                           {"loss", o.loss_opt},
                           {"vertex_inside_sweep", o.vertex_inside_sweep}});
  QJsonObject out{{"budgets", arr}};
  if (const auto& e = view.exponents) {
    out["a"] = e->a;
    out["b"] = e->b;
    out["a_plus_b"] = e->sum;
    out["sums_to_one"] = e->sums_to_one;
  }
  QJsonArray skipped;
  for (const std::string& why : view.skipped) skipped.append(QString::fromStdString(why));
  out["skipped"] = skipped;
  return out;
}

void print_isoflops_optima(const IsoflopsView& view) {
  if (!view.optima.empty()) {
    std::printf("  %-12s %-12s %-12s %-10s %s\n", "C (FLOPs)", "N_opt", "D_opt", "tok/param",
                "loss (nats)");
    for (const auto& o : view.optima)
      std::printf("  %-12s %-12s %-12s %-10s %s%s\n", format_sci(o.budget_flops, 2).c_str(),
                  format_count(o.n_opt, 2).c_str(), format_count(o.d_opt, 2).c_str(),
                  format_grouped(o.d_opt / o.n_opt, 1).c_str(),
                  format_grouped(o.loss_opt, 4).c_str(),
                  o.vertex_inside_sweep ? "" : "  (vertex outside the sweep)");
    std::printf("\n");
  }
  if (const auto& e = view.exponents) {
    row("N_opt ∝ C^a", "a = " + format_grouped(e->a, 4));
    row("D_opt ∝ C^b", "b = " + format_grouped(e->b, 4));
    row("a + b",
        format_grouped(e->sum, 4) + (e->sums_to_one ? " (C = 6ND holds)" : " (BUG: must be 1)"));
  } else {
    row("exponents", "none: " + view.exponent_error);
  }
  for (const std::string& why : view.skipped) row("skipped budget", why);
}

std::vector<Command> scaling_commands() {
  return {
      {"fit",
       usage_with_choices("fit --csv FILE|- [--n-col N] [--d-col D | --c-col C] [--loss-col loss] "
                          "[--max-loss X] [--estimator {isoflops.fit.estimator}] [--delta 1e-3] "
                          "[--target-flops 1e24] [--bootstrap N (at most 100,000)] [--seed S] "
                          "[--max-seconds S] [--skip-bad-rows] "
                          "[-o LAW.json (the law and its bootstrap draws, for budget --law)]"),
       run_fit},
      {"isoflops",
       usage_with_choices(
           "isoflops ([--seed S] [--noise 0.005] [--bias NATS] [--bias-mode "
           "{isoflops.ladder.synthetic.bias_mode}] "
           "[--budgets 1e18,1e19,...] [--target-flops C] | --scenario FILE [--max-seconds S] "
           "[--chip "
           "C] [--chips N] [--days D] [--mfu F] (the Budget planner's compute C* follows them) "
           "[--estimator {isoflops.fit.estimator}] (each replacing the file's value) [--save FILE] "
           "(a saved scenario's "
           "IsoFLOPs panel: its "
           "ladder, fit and bootstrap at C*))"),
       run_isoflops},
  };
}

}  // namespace napkin::cli
