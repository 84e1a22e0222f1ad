// config.json import: parameter counts equal the published checkpoints'
// exactly; malformed or hostile files give clear errors.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "config_import.h"
#include "io_test_util.h"

using namespace io_test;

using namespace napkin;

namespace {

const char* kMinimal = R"({"model_type":"llama","hidden_size":64,"intermediate_size":256,
  "num_attention_heads":4,"num_hidden_layers":2,"vocab_size":100)";

}  // namespace

struct Published {
  const char* file;
  const char* family;
  std::int64_t params;     // what count_params gives: the model's own parameters
  std::int64_t published;  // the checkpoint's published total (SOURCE.md)
  // published − params: tensors the checkpoint stores beyond the model's own
  // parameters, each explained in SOURCE.md (a stored copy of a tied table,
  // the MTP module with its copies of the embedding and head).
  std::int64_t stored_beyond = 0;
};

class ConfigImport : public ::testing::TestWithParam<Published> {};

TEST_P(ConfigImport, ParameterCountEqualsThePublishedCheckpoint) {
  const Published p = GetParam();
  const ImportedConfig c = import_hf_config_file(config_data(p.file));
  EXPECT_EQ(c.family, p.family);
  const ParamCount n = count_params(c.shape);
  EXPECT_EQ(n.total, p.params) << p.file;
  EXPECT_EQ(n.total + p.stored_beyond, p.published) << p.file;
}

// Llama-2-7B to Gemma-2B: the five families imported before issue 17.
INSTANTIATE_TEST_SUITE_P(
    RealCheckpoints, ConfigImport,
    ::testing::Values(
        // The checkpoint also stores 32 rotary inv_freq buffers of 64 fp32 values.
        Published{"llama-2-7b.json", "llama", 6'738'415'616, 6'738'417'664, 32 * 64},
        Published{"llama-3-8b.json", "llama", 8'030'261'248, 8'030'261'248},
        Published{"llama-3-70b.json", "llama", 70'553'706'496, 70'553'706'496},
        Published{"mistral-7b-v0.1.json", "mistral", 7'241'732'096, 7'241'732'096},
        Published{"mixtral-8x7b.json", "mixtral", 46'702'792'704, 46'702'792'704},
        Published{"qwen2-7b.json", "qwen2", 7'615'616'512, 7'615'616'512},
        Published{"qwen2-0.5b.json", "qwen2", 494'032'768, 494'032'768},
        Published{"gemma-7b.json", "gemma", 8'537'680'896, 8'537'680'896},
        Published{"gemma-2b.json", "gemma", 2'506'172'416, 2'506'172'416},
        Published{"deepseek-v2-lite.json", "deepseek_v2", 15'706'484'224, 15'706'484'224},
        Published{"deepseek-v2.json", "deepseek_v2", 235'741'434'880, 235'741'434'880},
        // 671B main model; the checkpoint's 684,489,845,504 tensor elements
        // add the MTP module (11,610,068,224) and its two copies of the
        // 926,679,040-parameter embedding table (README_WEIGHTS.md).
        Published{"deepseek-v3.json", "deepseek_v3", 671'026'419'200, 684'489'845'504,
                  11'610'068'224 + 2 * 926'679'040},
        Published{"qwen1.5-moe-a2.7b.json", "qwen2_moe", 14'315'784'192, 14'315'784'192},
        Published{"qwen2-57b-a14b.json", "qwen2_moe", 57'408'658'944, 57'408'658'944},
        // Tied embeddings; the safetensors file also stores lm_head.weight.
        Published{"qwen3-0.6b.json", "qwen3", 596'049'920, 751'632'384, 151'936 * 1024},
        Published{"qwen3-8b.json", "qwen3", 8'190'735'360, 8'190'735'360},
        Published{"qwen3-32b.json", "qwen3", 32'762'123'264, 32'762'123'264},
        Published{"qwen3-30b-a3b.json", "qwen3_moe", 30'532'122'624, 30'532'122'624},
        Published{"qwen3-235b-a22b.json", "qwen3_moe", 235'093'634'560, 235'093'634'560},
        Published{"gemma-2-2b.json", "gemma2", 2'614'341'888, 2'614'341'888},
        Published{"gemma-2-9b.json", "gemma2", 9'241'705'984, 9'241'705'984},
        Published{"gemma-2-27b.json", "gemma2", 27'227'128'320, 27'227'128'320},
        Published{"gemma-3-1b-pt.json", "gemma3_text", 999'885'952, 999'885'952},
        Published{"phi-3-mini-4k-instruct.json", "phi3", 3'821'079'552, 3'821'079'552},
        Published{"phi-4.json", "phi3", 14'659'507'200, 14'659'507'200},
        Published{"olmo-2-1124-7b.json", "olmo2", 7'298'617'344, 7'298'617'344},
        Published{"olmo-2-1124-13b.json", "olmo2", 13'716'198'400, 13'716'198'400},
        // Tied embeddings (FalconConfig's default); the checkpoints also
        // store lm_head.weight, a copy of the input table.
        Published{"falcon-7b.json", "falcon", 6'921'720'704, 7'217'189'760, 65'024 * 4544},
        Published{"falcon-40b.json", "falcon", 41'303'293'952, 41'835'970'560, 65'024 * 8192}),
    [](const auto& test) {
      std::string n = test.param.file;
      n = n.substr(0, n.find(".json"));
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// Published activated parameters of the MoE checkpoints, in each maker's
// convention: Qwen and Mistral count every embedding; DeepSeek leaves the
// input embedding lookup out ("36.6B including 0.9B for the output head").
struct PublishedActive {
  const char* file;
  double active_billions;  // as published (rounded)
  double tolerance_billions;
  bool without_input_embedding;
};

class ConfigImportActive : public ::testing::TestWithParam<PublishedActive> {};

TEST_P(ConfigImportActive, ActiveParametersMatchThePublishedFigure) {
  const PublishedActive p = GetParam();
  const ParamCount c = count_params(import_hf_config_file(config_data(p.file)).shape);
  const double active =
      static_cast<double>(p.without_input_embedding ? c.active_without_input_embedding : c.active) /
      1e9;
  EXPECT_NEAR(active, p.active_billions, p.tolerance_billions) << p.file;
}

INSTANTIATE_TEST_SUITE_P(
    MoeCheckpoints, ConfigImportActive,
    ::testing::Values(PublishedActive{"mixtral-8x7b.json", 12.9, 0.05, false},
                      PublishedActive{"qwen1.5-moe-a2.7b.json", 2.7, 0.05, false},
                      PublishedActive{"qwen2-57b-a14b.json", 14.0, 0.5, false},
                      PublishedActive{"qwen3-30b-a3b.json", 3.3, 0.06, false},
                      PublishedActive{"qwen3-235b-a22b.json", 22.0, 0.5, false},
                      PublishedActive{"deepseek-v2-lite.json", 2.4, 0.06, true},
                      PublishedActive{"deepseek-v2.json", 21.0, 0.5, true},
                      PublishedActive{"deepseek-v3.json", 36.6, 0.05, true}),
    [](const auto& test) {
      std::string n = test.param.file;
      n = n.substr(0, n.find(".json"));
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(ConfigImportDetails, MixtralActiveParameters) {
  const ImportedConfig c = import_hf_config_file(config_data("mixtral-8x7b.json"));
  EXPECT_EQ(c.shape.n_experts, 8);
  EXPECT_EQ(c.shape.top_k, 2);
  // Mistral AI's published figure: 12.9B active of 46.7B.
  EXPECT_NEAR(count_params(c.shape).active / 1e9, 12.9, 0.05);
}

TEST(ConfigImportDetails, FamilyDefaultsForOmittedKeys) {
  // Gemma ties embeddings by default; Llama does not; kv heads default to MHA.
  const ImportedConfig g = import_hf_config_file(config_data("gemma-7b.json"));
  EXPECT_TRUE(g.shape.tied_embeddings);
  const ImportedConfig l = import_hf_config(std::string(kMinimal) + "}");
  EXPECT_FALSE(l.shape.tied_embeddings);
  EXPECT_EQ(l.shape.n_kv_heads, 4);
  EXPECT_EQ(l.shape.d_head, 16);
  EXPECT_FALSE(l.notes.empty());
  // Qwen2 always has q/k/v biases.
  EXPECT_TRUE(import_hf_config_file(config_data("qwen2-7b.json")).shape.qkv_bias);
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
  EXPECT_NE(unknown.find("model_type \"gpt2\": this architecture is not supported yet"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("supported: llama, mistral, mixtral, qwen2, gemma, deepseek_v2"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("napkin-cli params --layers L --d-model D"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find('\n'), std::string::npos) << unknown;
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
