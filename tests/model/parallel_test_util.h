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
#include "expect_throw.h"
#include "model_presets.h"

namespace napkin::testing_util {

// The GPT layer of Megatron-LM's papers: MHA, a 4h GeLU MLP, biases, tied
// embeddings, vocabulary 51,200.
inline ModelShape gpt(std::int64_t layers, std::int64_t hidden, std::int64_t heads) {
  ModelShape s{layers, hidden, 4 * hidden, heads, heads, hidden / heads, 51200};
  s.gated = false;
  s.tied_embeddings = true;
  s.qkv_bias = s.o_bias = s.mlp_bias = true;
  return s;
}

// The model preset whose name starts with `prefix` (presets may be added or
// renamed around it, e.g. "DeepSeek-V3-like MoE" → "DeepSeek-V3").
inline ModelShape preset_shape(std::string_view prefix) {
  for (const ModelPreset& p : model_presets())
    if (p.name.substr(0, prefix.size()) == prefix) return p.shape;
  throw std::runtime_error("no model preset named " + std::string(prefix));
}

// A CSV file with a header row; fields may be double-quoted (with commas inside).
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(field);
      field.clear();
    } else if (ch != '\r') {
      field += ch;
    }
  }
  out.push_back(field);
  return out;
}

inline CsvTable read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  CsvTable t;
  std::string line;
  std::getline(in, line);
  t.header = split_csv_line(line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split_csv_line(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < t.header.size() && i < f.size(); ++i) row[t.header[i]] = f[i];
    t.rows.push_back(row);
  }
  return t;
}

}  // namespace napkin::testing_util
