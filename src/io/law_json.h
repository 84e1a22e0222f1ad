// A fitted loss law as a file: `napkin-cli fit -o LAW.json` writes it (the
// constants, the ladder's largest run, the bootstrap draws), `napkin-cli
// budget --law LAW.json` reads it. A file that is not such a law is refused
// with one message naming the key at fault.
//
//   {"format": "napkin-law", "version": 1, "name": "the law fitted to ladder.csv",
//    "estimator": "huber-log", "E": 1.82, "A": 482, "alpha": 0.348, "B": 2085,
//    "beta": 0.366, "ladder_max_flops": 1.3e22, "n_points": 245,
//    "confidence": 0.95, "draws": [{"E": …, "A": …, "alpha": …, "B": …, "beta": …}, …]}
#pragma once

#include <QByteArray>
#include <string>
#include <string_view>

#include "plan_law.h"

namespace napkin {

// A law file is at most this large (100,000 draws of five numbers fit).
inline constexpr std::int64_t kMaxLawFileBytes = 64 << 20;

QByteArray plan_law_to_json(const PlanLaw& law, std::string_view estimator = {},
                            std::int64_t n_points = 0);
// Throws std::invalid_argument "<source>: <key>: <why>".
PlanLaw plan_law_from_json(std::string_view json, std::string_view source);
// Reads (bounded in size) and parses a law file; throws std::runtime_error.
PlanLaw load_plan_law_file(const std::string& path);
// Writes through the atomic writer; throws std::runtime_error naming the path.
void save_plan_law_file(const std::string& path, const PlanLaw& law,
                        std::string_view estimator = {}, std::int64_t n_points = 0);

}  // namespace napkin
