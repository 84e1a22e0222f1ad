#include "serving_validation.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "csv.h"
#include "format.h"
#include "model_presets.h"
#include "parallel_for.h"
#include "serving_modes.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr std::int64_t kMaxCsvBytes = 1 << 20;
constexpr std::size_t kMaxRows = 10'000;

using Row = std::map<std::string, std::string>;

double number(const Row& row, const std::string& column, std::size_t line_no) {
  const std::string& text = row.at(column);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0)
    throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) +
                                ", column " + column + ": '" + text + "' is not a positive number");
  return v;
}

std::int64_t count(const Row& row, const std::string& column, std::size_t line_no) {
  const double v = number(row, column, line_no);
  if (v != std::floor(v) || v > 1e9)
    throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) +
                                ", column " + column + ": '" + row.at(column) +
                                "' is not a whole number in [1, 1e9]");
  return static_cast<std::int64_t>(v);
}

// The CSV's records as rows by column name, each with its line: the one CSV
// reader (csv.h: quoting, CR LF, a byte-order mark, blank lines), bounded,
// with every column in `needs` present and every record as wide as the header.
std::vector<std::pair<std::size_t, Row>> read_rows(std::string_view text,
                                                   std::initializer_list<const char*> needs) {
  const csv::Table table = csv::read_table(text, "published serving CSV", kMaxCsvBytes, false);
  if (table.records.size() > kMaxRows)
    throw std::invalid_argument("published serving CSV: too many lines");
  for (const char* need : needs)
    if (std::find(table.header.begin(), table.header.end(), need) == table.header.end())
      throw std::invalid_argument(std::string("published serving CSV: no column '") + need +
                                  "' in the header");
  std::vector<std::pair<std::size_t, Row>> rows;
  for (const csv::Record& rec : table.records) {
    const auto line_no = static_cast<std::size_t>(rec.line);
    if (rec.fields.size() != table.header.size())
      throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) + ": " +
                                  std::to_string(rec.fields.size()) + " fields, the header has " +
                                  std::to_string(table.header.size()));
    Row row;
    for (std::size_t i = 0; i < table.header.size(); ++i) row[table.header[i]] = rec.fields[i].text;
    rows.emplace_back(line_no, std::move(row));
  }
  return rows;
}

// The benchmark's setting: no serving scaffolding (the timer wraps
// generate() only); FP16 moves BF16's bytes at the same tensor-core peak.
ServingInputs inputs_for(const Row& row, std::size_t line_no) {
  ServingInputs in;
  in.chip = row.at("chip");
  in.layout.tp = count(row, "tp", line_no);
  in.batch = count(row, "batch", line_no);
  in.prompt_tokens = count(row, "input_tokens", line_no);
  in.decode_tokens = count(row, "output_tokens", line_no);
  in.overhead_seconds = 0;
  const std::string& p = row.at("precision");
  if (p != "fp8" && p != "fp16" && p != "bf16")
    throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) +
                                ", column precision: '" + p + "' is not fp8, fp16 or bf16");
  in.weights = p == "fp8" ? Dtype::fp8 : Dtype::bf16;
  in.kv = in.weights;
  in.engine = std::string(engine_for_trtllm_version(row.at("trtllm_version")));
  return in;
}

std::string label_for(const Row& row) {
  return row.at("model") + " " + row.at("chip") + " " + row.at("precision") + " TP" + row.at("tp") +
         " batch " + row.at("batch") + " " + row.at("input_tokens") + "/" + row.at("output_tokens");
}

constexpr std::string_view kSource =
    "NVIDIA TensorRT-LLM docs/source/performance.md at commit 77d24b5fa178 (v0.6.1 peak "
    "throughput, v0.5 low latency); tests/data/serving/SOURCE.md";

}  // namespace

std::string_view engine_for_trtllm_version(std::string_view version) {
  int major = -1, minor = -1;
  if (version.size() >= 4 && version[0] == 'v') {
    const char* p = version.data() + 1;
    const char* end = version.data() + version.size();
    auto r1 = std::from_chars(p, end, major);
    if (r1.ec == std::errc() && r1.ptr < end && *r1.ptr == '.') {
      auto r2 = std::from_chars(r1.ptr + 1, end, minor);
      if (r2.ec != std::errc()) minor = -1;
    }
  }
  if (major < 0 || minor < 0)
    throw std::invalid_argument("TensorRT-LLM version '" + std::string(version) +
                                "' is not vMAJOR.MINOR[.PATCH]");
  // The XQA generation kernel shipped with v0.8 (XQA-kernel blog).
  return (major == 0 && minor < 8) ? "tensorrt-llm-0.6" : "tensorrt-llm";
}

ModelShape published_serving_shape(std::string_view name) {
  if (name == "llama-2-7b") return ModelShape{};  // the defaults are Llama-2-7B's shape
  if (name == "llama-2-70b") return ModelShape{80, 8192, 28672, 64, 8, 128, 32000};
  // meta-llama's config.json files: Llama 3.1 8B, Llama 3.1 and 3.3 70B (one
  // shape) and Llama 3.1 405B, vocabulary 128,256, untied.
  if (name == "llama-3.1-8b") return model_preset_shape("Llama-3-8B");
  if (name == "llama-3.1-70b" || name == "llama-3.3-70b") return model_preset_shape("Llama-3-70B");
  if (name == "llama-3.1-405b") return model_preset_shape("Llama-3.1-405B");
  // mistralai's config.json files: 8 experts, 2 per token, no sliding window.
  if (name == "mixtral-8x7b" || name == "mixtral-8x22b") {
    ModelShape s = name == "mixtral-8x7b" ? ModelShape{32, 4096, 14336, 32, 8, 128, 32000}
                                          : ModelShape{56, 6144, 16384, 48, 8, 128, 32000};
    s.n_experts = 8;
    s.top_k = 2;
    return s;
  }
  if (name == "gpt-j-6b") {
    // EleutherAI/gpt-j-6b: 28 layers, 4096 wide, 16 heads of 256, a 4h GeLU
    // MLP with biases, one LayerNorm per parallel block, vocabulary 50,400.
    ModelShape s{28, 4096, 16384, 16, 16, 256, 50400};
    s.gated = false;
    s.mlp_bias = true;
    s.norms_per_layer = 1;
    s.norm_bias = true;
    s.parallel_blocks = true;
    return s;
  }
  if (name == "falcon-180b") {
    // tiiuae/falcon-180B: 80 layers, 14,848 wide, 232 query heads of 64, 8 KV
    // heads, a 4h GeLU MLP, two LayerNorms per parallel block, tied
    // embeddings, vocabulary 65,024.
    ModelShape s{80, 14848, 4 * 14848, 232, 8, 64, 65024};
    s.gated = false;
    s.tied_embeddings = true;
    s.norm_bias = true;
    s.parallel_blocks = true;
    return s;
  }
  throw std::invalid_argument(
      "published serving model '" + std::string(name) +
      "' has no shape; one of llama-2-7b, llama-2-70b, gpt-j-6b, "
      "falcon-180b, llama-3.1-8b, llama-3.1-70b, llama-3.3-70b, llama-3.1-405b, "
      "mixtral-8x7b, mixtral-8x22b");
}

std::vector<PublishedServingRow> published_serving_rows(std::string_view text) {
  std::vector<PublishedServingRow> rows;
  for (const auto& [line_no, row] :
       read_rows(text, {"model", "chip", "precision", "tp", "batch", "input_tokens",
                        "output_tokens", "metric", "value", "trtllm_version"})) {
    PublishedServingRow out{.label = label_for(row),
                            .metric = row.at("metric"),
                            .shape = published_serving_shape(row.at("model")),
                            .inputs = inputs_for(row, line_no),
                            .measured = number(row, "value", line_no),
                            .version = row.at("trtllm_version")};
    if (out.metric == "first_token_latency_ms") {
      // The same benchmark with one output token: GptSession::generate runs
      // the context engine once and no generation step (its step loop ends
      // after step 0 when maxNewTokens is 1; gptSession.cpp).
      out.inputs.decode_tokens = 1;
    } else if (out.metric != "throughput_out_tok_per_s_per_gpu") {
      throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) +
                                  ", column metric: '" + out.metric +
                                  "' is not a known measurement");
    }
    rows.push_back(std::move(out));
  }
  return rows;
}

std::vector<ValidationSet> serving_validation_sets(std::string_view text) {
  ValidationSet throughput{
      .key = "serving-trtllm-throughput",
      .title = "TensorRT-LLM v0.6.1 peak throughput (H100 FP8, A100 FP16), static batch",
      .quantity = "output tokens/s per GPU",
      .unit = "tokens/s",
      .source = std::string(kSource),
      .outside =
          "the benchmark's engine builds were tuned per table row (batch up to 1,280 with "
          "--max_batch_size 64 in the printed commands); XQA use per row is not stated",
      .rows = {}};
  ValidationSet throughput_v05{
      .key = "serving-trtllm-throughput-v0.5",
      .title = "TensorRT-LLM v0.5 high throughput at TP 1 (H100 FP8, A100 FP16), static batch",
      .quantity = "output tokens/s per GPU",
      .unit = "tokens/s",
      .source =
          "NVIDIA TensorRT-LLM docs/source/performance.md on the release/0.5.0 branch "
          "(High Throughput tables); tests/data/serving/SOURCE.md",
      .outside =
          "held out (no constant set from these rows); the release's FP8 GEMM rate is "
          "v0.6.1's (the preset's 0.70 of the FP8 peak)",
      .rows = {}};
  ValidationSet first_token{
      .key = "serving-trtllm-first-token",
      .title = "TensorRT-LLM v0.5 first-token latency at batch 1 and 64 (H100 FP8, A100 FP16)",
      .quantity = "first-token latency",
      .unit = "ms",
      .source = std::string(kSource),
      .outside =
          "v0.5's FP8 GEMM rate on H100 is not published (the 2,048-token rows imply 0.44-0.62 "
          "of the FP8 peak, the preset takes 0.70 as v0.6.1's throughput rows bear out); the "
          "runtime's per-call host work is not modelled (at most ~0.35 ms by the A100 GPT-J "
          "row); whole-ms rounding (up to 7 % on the 7 ms rows)",
      .rows = {},
      .lower_is_optimistic = true};

  for (const PublishedServingRow& r : published_serving_rows(text)) {
    const ServingModel model = serving_model(r.shape);
    ValidationRow v{.label = r.label,
                    .predicted = 0,
                    .measured = r.measured,
                    .setting = r.inputs.engine,
                    .chip = r.inputs.chip};
    if (r.metric == "throughput_out_tok_per_s_per_gpu") {
      v.predicted = evaluate_static_batch(model, r.inputs).tokens_per_second_per_chip;
      (r.version == "v0.5" ? throughput_v05 : throughput).rows.push_back(v);
    } else {
      v.predicted = 1e3 * evaluate_static_batch(model, r.inputs).total_seconds;
      first_token.rows.push_back(v);
    }
  }
  std::vector<ValidationSet> out;
  if (!throughput.rows.empty()) out.push_back(std::move(throughput));
  if (!throughput_v05.rows.empty()) out.push_back(std::move(throughput_v05));
  if (!first_token.rows.empty()) out.push_back(std::move(first_token));
  return out;
}

namespace {

// One offline set per version, dense and MoE models and NVFP4 runs apart.
std::string offline_set_key(const std::string& version, bool moe, bool fp4) {
  return "serving-trtllm-offline-" + version + (fp4 ? "-fp4" : "") + (moe ? "-moe" : "");
}

// What each published table states about how it was run, and what it leaves
// for Napkin to assume (tests/data/serving/SOURCE.md).
ValidationSet offline_set_for(const std::string& version, bool moe, bool fp4) {
  ValidationSet set{.key = offline_set_key(version, moe, fp4),
                    .title = "TensorRT-LLM " + version + " offline throughput (trtllm-bench)",
                    .quantity = "output tokens/s (all GPUs)",
                    .unit = "tokens/s",
                    .source =
                        "NVIDIA TensorRT-LLM docs/source/performance/perf-overview.md; "
                        "tests/data/serving/SOURCE.md",
                    .outside = "held out (no constant set from these rows)",
                    .rows = {}};
  if (version == "v1.0" && fp4) {
    set.title += ", PyTorch backend, B200 and GB200, NVFP4";
    set.source =
        "NVIDIA TensorRT-LLM docs/source/performance/perf-overview.md at commit 00f37686aa85 "
        "(v1.0); tests/data/serving/SOURCE.md";
    set.outside =
        "held out (no constant set from these rows); NVFP4 weights and activations with an FP8 "
        "KV cache (trtllm-bench's cache for FP4 checkpoints); the max batch size and token "
        "budget are what trtllm-bench derives from each dataset (no context chunking: the "
        "budget raised to the prompt + the batch); some runs used 95 % of the free memory for "
        "the KV cache (the preset's 90 % is taken); no B200 memory-copy benchmark is published, "
        "so its HBM fractions are the H100's";
  } else if (version == "v1.0") {
    set.title += ", PyTorch backend, H100 and H200, FP8";
    set.source =
        "NVIDIA TensorRT-LLM docs/source/performance/perf-overview.md at commit 00f37686aa85 "
        "(v1.0); tests/data/serving/SOURCE.md";
    set.outside =
        "held out (no constant set from these rows); the checkpoints' FP8 KV cache is Model "
        "Optimizer's export default, not stated by the page; the max batch size and token "
        "budget are what trtllm-bench derives from each dataset (no context chunking: the "
        "budget raised to the prompt + the batch); some runs used 95 % of the free memory for "
        "the KV cache (the preset's 90 % is taken)";
  } else if (version == "v0.17") {
    set.title += moe ? ", TensorRT engines, Mixtral, H100 and H200 FP8, A100 FP16"
                     : ", TensorRT engines, H100 and H200 FP8, A100 FP16";
    set.source =
        "NVIDIA TensorRT-LLM docs/source/performance/perf-overview.md at commit 258c7540c035 "
        "(v0.17); tests/data/serving/SOURCE.md";
    set.outside =
        "held out (no constant set from these rows); engines built with the max batch size and "
        "token budget trtllm-bench derives from each dataset, the context chunked where a prompt "
        "exceeds the budget; most runs used 95 % of the free memory for the KV cache (the "
        "preset's 90 % is taken)";
  }
  if (moe)
    set.outside +=
        "; the experts split TP ways (TensorRT-LLM's default expert tensor parallelism) and "
        "routed uniformly; the MoE plugin's routing, permutation and grouped-GEMM efficiency "
        "are not modelled beyond the shared kernel model";
  return set;
}

}  // namespace

TrtllmBenchSettings trtllm_bench_settings(const ServingModel& model, const Chip& chip,
                                          std::int64_t tp, std::int64_t pp,
                                          std::int64_t input_tokens, std::int64_t output_tokens,
                                          Dtype weights) {
  require_count(tp, "tp", "ranks");
  require_count(pp, "pp", "stages");
  require_count(input_tokens, "input_tokens", "tokens");
  require_count(output_tokens, "output_tokens", "tokens");
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  const bool fp8_kv = weights == Dtype::fp8 || weights == Dtype::fp4;
  const double bytes_per_weight = weights == Dtype::fp4 ? 0.5 : fp8_kv ? 1.0 : 2.0;
  const double bytes_per_kv = fp8_kv ? 1.0 : 2.0;
  const double devices = static_cast<double>(tp * pp);
  const double kv_heads = std::max(static_cast<double>(tp), static_cast<double>(model.n_kv_heads));
  const double kv_gib_per_token = 2.0 * static_cast<double>(model.n_layers) * kv_heads *
                                  static_cast<double>(model.d_head) * bytes_per_kv / kGiB;
  const double free_gib = static_cast<double>(device_memory(chip).bytes) / kGiB * devices -
                          model.total_params() / 1e9 * bytes_per_weight;
  const double requests =
      free_gib * 0.95 / kv_gib_per_token / static_cast<double>(input_tokens + output_tokens);
  if (!(requests >= 1))
    throw std::invalid_argument(
        "trtllm-bench settings: not one request's KV cache fits beside the weights on " +
        format_grouped(devices) + " x " + std::string(chip.name));
  const double batch = std::min(requests, 4096.0) / static_cast<double>(pp);
  const double tokens = std::min(
      batch * (1.0 + static_cast<double>(input_tokens) / static_cast<double>(output_tokens)),
      32768.0);
  auto up = [](double x, double step) { return step * std::ceil(x / step); };
  TrtllmBenchSettings s;
  s.max_batch_size = static_cast<std::int64_t>(batch < 256    ? std::max(64.0, up(batch, 32))
                                               : batch < 1024 ? up(batch, 128)
                                                              : up(batch, 256));
  s.max_num_tokens = static_cast<std::int64_t>(tokens < 4096   ? std::max(2048.0, up(tokens, 256))
                                               : tokens < 8192 ? up(tokens, 512)
                                                               : up(tokens, 1024));
  return s;
}

std::vector<ValidationSet> trtllm_offline_validation_sets(std::string_view text) {
  std::vector<ValidationSet> sets;
  // Every row parsed first, then simulated on the model library's thread pool
  // (each simulation is seeded and writes its own row).
  struct Pending {
    std::size_t set = 0, row = 0;
    ServingModel model;
    ModeInputs in;
  };
  std::vector<Pending> pending;
  for (const auto& [line_no, row] :
       read_rows(text, {"model", "chip", "precision", "tp", "input_tokens", "output_tokens",
                        "requests", "metric", "value", "trtllm_version", "max_batch_size"})) {
    if (row.at("metric") != "total_output_tokens_per_s")
      throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) +
                                  ", column metric: '" + row.at("metric") +
                                  "' is not total_output_tokens_per_s");
    const std::string& precision = row.at("precision");
    if (precision != "fp8" && precision != "fp16" && precision != "fp4")
      throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) +
                                  ", column precision: '" + precision +
                                  "' is not fp8, fp4 or fp16");
    // trtllm-bench throughput: every request queued at once, in-flight
    // batching, lengths fixed (stdev 0), the page's request count per length
    // pair. FP8: FP8 weights and activations with an FP8 KV cache; FP4: NVFP4
    // weights and activations with an FP8 KV cache (the FP4 checkpoints'
    // KV cache as trtllm-bench sets it); FP16 moves BF16's bytes at the same
    // tensor-core peak.
    ModeInputs in;
    in.mode = BatchingMode::offline;
    in.serving.chip = row.at("chip");
    in.serving.layout.tp = count(row, "tp", line_no);
    in.serving.prompt_tokens = count(row, "input_tokens", line_no);
    in.serving.decode_tokens = count(row, "output_tokens", line_no);
    in.serving.overhead_seconds = 0;
    in.serving.weights = precision == "fp8"   ? Dtype::fp8
                         : precision == "fp4" ? Dtype::fp4
                                              : Dtype::bf16;
    in.serving.kv = precision == "fp16" ? Dtype::bf16 : Dtype::fp8;
    const std::string& version = row.at("trtllm_version");
    in.serving.engine = std::string(engine_for_trtllm_version(version));
    in.requests = count(row, "requests", line_no);
    const ModelShape shape = published_serving_shape(row.at("model"));
    const ServingModel model = serving_model(shape);
    // The run's max batch size where the page states one; else what
    // trtllm-bench derives from the dataset, with its token budget. Its
    // PyTorch flow (v1.0) runs without context chunking and so raises the
    // budget to the longest prompt + the batch (benchmark/utils/general.py,
    // get_settings); its TensorRT engines (v0.17) keep the derived budget,
    // below some rows' prompts (5,000 and 20,000 tokens), which ran: their
    // runtime chunked the context (the engines are built with paged context
    // FMHA, which chunking needs).
    if (!row.at("max_batch_size").empty()) {
      in.concurrency = count(row, "max_batch_size", line_no);
    } else {
      TrtllmBenchSettings bench;
      try {
        bench = trtllm_bench_settings(model, chip_by_name(in.serving.chip), in.serving.layout.tp, 1,
                                      in.serving.prompt_tokens, in.serving.decode_tokens,
                                      in.serving.weights);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("published serving CSV line " + std::to_string(line_no) + ": " +
                                    e.what());
      }
      in.concurrency = bench.max_batch_size;
      // From v1.0 trtllm-bench runs the PyTorch backend by default.
      const bool pytorch_flow = version.rfind("v0.", 0) != 0;
      in.max_tokens_per_step =
          pytorch_flow
              ? std::max(bench.max_num_tokens, in.serving.prompt_tokens + bench.max_batch_size)
              : bench.max_num_tokens;
      in.chunked_prefill = !pytorch_flow;
    }
    // The sets in order of their first row.
    const bool fp4 = precision == "fp4";
    const std::string key = offline_set_key(version, shape.is_moe(), fp4);
    auto it = std::find_if(sets.begin(), sets.end(),
                           [&](const ValidationSet& s) { return s.key == key; });
    if (it == sets.end()) {
      sets.push_back(offline_set_for(version, shape.is_moe(), fp4));
      it = sets.end() - 1;
    }
    it->rows.push_back({.label = row.at("model") + " " + row.at("chip") + " TP" + row.at("tp") +
                                 " " + row.at("input_tokens") + "/" + row.at("output_tokens") +
                                 " (" + format_grouped(static_cast<double>(in.requests)) +
                                 " requests)",
                        .predicted = 0,
                        .measured = number(row, "value", line_no),
                        .setting = in.serving.engine,
                        .chip = in.serving.chip});
    pending.push_back(
        {static_cast<std::size_t>(it - sets.begin()), it->rows.size() - 1, model, in});
  }
  std::vector<double> predicted(pending.size());
  parallel_for(static_cast<int>(pending.size()), 0, [&](int i) {
    const Pending& p = pending[static_cast<std::size_t>(i)];
    predicted[static_cast<std::size_t>(i)] = evaluate_mode(p.model, p.in).output_tokens_per_second;
  });
  for (std::size_t i = 0; i < pending.size(); ++i)
    sets[pending[i].set].rows[pending[i].row].predicted = predicted[i];
  return sets;
}

}  // namespace napkin
