// config.json import: parameter counts equal the published checkpoints'
// exactly; malformed or hostile files give clear errors.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "config_import.h"

using namespace napkin;

namespace {

std::string data(const char* name) { return std::string(NAPKIN_TEST_DATA) + "/configs/" + name; }

std::string import_error(const std::string& json) {
  try {
    import_hf_config(json, "test.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const char* kMinimal = R"({"model_type":"llama","hidden_size":64,"intermediate_size":256,
  "num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100)";

}  // namespace

struct Published {
  const char* file;
  const char* family;
  std::int64_t params;  // the checkpoint's published parameter count
};

class ConfigImport : public ::testing::TestWithParam<Published> {};

TEST_P(ConfigImport, ParameterCountEqualsThePublishedCheckpoint) {
  const Published p = GetParam();
  const ImportedConfig c = import_hf_config_file(data(p.file));
  EXPECT_EQ(c.family, p.family);
  EXPECT_EQ(count_params(c.shape).total, p.params) << p.file;
}

INSTANTIATE_TEST_SUITE_P(
    RealCheckpoints, ConfigImport,
    ::testing::Values(Published{"llama-2-7b.json", "llama", 6'738'415'616},
                      Published{"llama-3-8b.json", "llama", 8'030'261'248},
                      Published{"llama-3-70b.json", "llama", 70'553'706'496},
                      Published{"mistral-7b-v0.1.json", "mistral", 7'241'732'096},
                      Published{"mixtral-8x7b.json", "mixtral", 46'702'792'704},
                      Published{"qwen2-7b.json", "qwen2", 7'615'616'512},
                      Published{"qwen2-0.5b.json", "qwen2", 494'032'768},
                      Published{"gemma-7b.json", "gemma", 8'537'680'896},
                      Published{"gemma-2b.json", "gemma", 2'506'172'416}),
    [](const auto& info) {
      std::string n = info.param.file;
      n = n.substr(0, n.find(".json"));
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(ConfigImportDetails, MixtralActiveParameters) {
  const ImportedConfig c = import_hf_config_file(data("mixtral-8x7b.json"));
  EXPECT_EQ(c.shape.n_experts, 8);
  EXPECT_EQ(c.shape.top_k, 2);
  // Mistral AI's published figure: 12.9B active of 46.7B.
  EXPECT_NEAR(count_params(c.shape).active / 1e9, 12.9, 0.05);
}

TEST(ConfigImportDetails, FamilyDefaultsForOmittedKeys) {
  // Gemma ties embeddings by default; Llama does not; kv heads default to MHA.
  const ImportedConfig g = import_hf_config_file(data("gemma-7b.json"));
  EXPECT_TRUE(g.shape.tied_embeddings);
  const ImportedConfig l = import_hf_config(std::string(kMinimal) + "}");
  EXPECT_FALSE(l.shape.tied_embeddings);
  EXPECT_EQ(l.shape.n_kv_heads, 4);
  EXPECT_EQ(l.shape.d_head, 16);
  EXPECT_FALSE(l.notes.empty());
  // Qwen2 always has q/k/v biases.
  EXPECT_TRUE(import_hf_config_file(data("qwen2-7b.json")).shape.qkv_bias);
}

TEST(ConfigImportDetails, LlamaAttentionBiasCoversAllFourProjections) {
  const ImportedConfig a = import_hf_config(std::string(kMinimal) + "}");
  const ImportedConfig b = import_hf_config(std::string(kMinimal) + R"(,"attention_bias":true})");
  EXPECT_EQ(count_params(b.shape).total - count_params(a.shape).total, 2 * (3 * 64 + 64));
}

TEST(ConfigImportErrors, MalformedJson) {
  EXPECT_NE(import_error("{").find("test.json: not valid JSON"), std::string::npos);
  EXPECT_NE(import_error("").find("not valid JSON"), std::string::npos);
  EXPECT_NE(import_error("[1,2]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(import_error(std::string(kMinimal)).find("not valid JSON"), std::string::npos);
}

TEST(ConfigImportErrors, MissingOrMistypedKeysNameTheKey) {
  EXPECT_NE(import_error(R"({"hidden_size":64})").find("key \"model_type\""), std::string::npos);
  const std::string unknown = import_error(R"({"model_type":"gpt2"})");
  EXPECT_NE(unknown.find("one of llama, mistral, mixtral, qwen2, gemma"), std::string::npos)
      << unknown;
  EXPECT_NE(import_error(R"({"model_type":"llama"})").find("key \"hidden_size\""),
            std::string::npos);
  const std::string s = import_error(std::string(kMinimal) + R"(,"num_key_value_heads":"8"})");
  EXPECT_NE(s.find("key \"num_key_value_heads\": expected an integer"), std::string::npos) << s;
  EXPECT_NE(s.find("found the string \"8\""), std::string::npos) << s;
  EXPECT_NE(import_error(std::string(kMinimal) + R"(,"tie_word_embeddings":1})")
                .find("expected true or false"),
            std::string::npos);
}

TEST(ConfigImportErrors, OutOfRangeValues) {
  const std::string base =
      R"({"model_type":"llama","intermediate_size":256,"num_attention_heads":4,
      "num_hidden_layers":2,"vocab_size":100,"hidden_size":)";
  for (const char* bad : {"-64", "0", "64.5", "1e300", "1e20"})
    EXPECT_NE(import_error(base + bad + "}").find("key \"hidden_size\""), std::string::npos) << bad;
  EXPECT_NE(import_error(std::string(kMinimal) + R"(,"num_key_value_heads":3})")
                .find("a divisor of num_attention_heads = 4"),
            std::string::npos);
  EXPECT_NE(import_error(std::string(kMinimal) + R"(,"num_key_value_heads":8})")
                .find("num_key_value_heads"),
            std::string::npos);
}

TEST(ConfigImportErrors, HostileInputDoesNotCrashOrHang) {
  EXPECT_FALSE(import_error(std::string(100000, '[') + std::string(100000, ']')).empty());
  EXPECT_FALSE(import_error(std::string(20 * 1024 * 1024, ' ')).empty());
  EXPECT_FALSE(import_error(std::string("{\"model_type\":\"llama\0\"}", 24)).empty());
  // The largest shapes the importer accepts still count exactly in 64 bits.
  const std::string huge =
      R"({"model_type":"llama","hidden_size":1000000,"intermediate_size":10000000,
      "num_attention_heads":1000,"num_hidden_layers":100000,"vocab_size":100000000})";
  EXPECT_GT(count_params(import_hf_config(huge).shape).total, 3'000'000'000'000'000'000);
}

TEST(ConfigImportErrors, MissingFile) {
  EXPECT_THROW(import_hf_config_file("/nonexistent/config.json"), std::invalid_argument);
}
