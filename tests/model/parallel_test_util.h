// Shared helpers for the parallelism planner's tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "algebra.h"
#include "csv.h"
#include "expect_throw.h"
#include "gpt_shape.h"
#include "model_presets.h"

namespace napkin::testing_util {

// The model preset whose name starts with `prefix` (presets may be added or
// renamed around it, e.g. "DeepSeek-V3-like MoE" → "DeepSeek-V3").
inline ModelShape preset_shape(std::string_view prefix) {
  for (const ModelPreset& p : model_presets())
    if (p.name.substr(0, prefix.size()) == prefix) return p.shape;
  throw std::runtime_error("no model preset named " + std::string(prefix));
}

// A CSV file with a header row, read by the model library's one CSV reader.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

inline CsvTable read_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream text;
  text << in.rdbuf();
  const CsvText csv(text.str(), path);
  CsvTable t;
  t.header = csv.header();
  for (std::size_t r = 0; r < csv.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < t.header.size(); ++i) row[t.header[i]] = csv.at(r, i);
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace napkin::testing_util
