// Phase 03 commands: roofline, latency, decode-intensity, tile, mfu.
#include <cstdio>
#include <string>

#include "algebra.h"
#include "cli_common.h"
#include "format.h"
#include "hardware.h"
#include "inputs.h"
#include "roofline.h"

namespace napkin::cli {

namespace {

std::string fixed(double v, int decimals) { return format_grouped(v, decimals); }

int run_roofline(Args& a) {
  const bool json = a.flag("--json");
  const std::string chip_name = a.required_text("--chip");
  const double flops = a.required_real("--flops", 0, 1e30, "FLOPs");
  const double bytes = a.required_real("--bytes", 1e-30, 1e30, "bytes");
  a.finish();
  const Chip& chip = chip_by_name(chip_name);
  const RooflinePoint p = roofline_point(chip, flops, bytes);
  if (json) {
    print_json(QJsonObject{
        {"chip", QString::fromUtf8(chip.name.data(), static_cast<qsizetype>(chip.name.size()))},
        {"intensity", p.intensity},
        {"ridge", p.ridge_flops_per_byte},
        {"attainable_flops_per_s", p.attainable_flops_per_s},
        {"fraction_of_peak", p.fraction_of_peak},
        {"seconds", p.seconds},
        {"bound", QString::fromUtf8(to_string(p.bound).data())},
        {"lever", QString::fromUtf8(lever(p.bound).data())}});
    return 0;
  }
  std::printf("Roofline on %s\n", std::string(chip.name).c_str());
  row("arithmetic intensity", fixed(p.intensity, 2) + " FLOP/byte");
  row("ridge point", fixed(p.ridge_flops_per_byte, 1) + " FLOP/byte");
  row("attainable", format_sci(p.attainable_flops_per_s) + " FLOP/s (" +
                        format_percent(p.fraction_of_peak) + " of peak)");
  row("time on one chip", format_seconds(p.seconds));
  row("verdict", std::string(to_string(p.bound)) + "-bound -> " + std::string(lever(p.bound)));
  return 0;
}

int run_latency(Args& a) {
  const bool json = a.flag("--json");
  TurnInputs in;
  in.n_params = a.required_real("--params", 1, 1e18, "parameters");
  in.chip = a.required_text("--chip");
  in.n_chips = a.required_count_input("hardware.chips");
  // The serving turn's inputs, under latency's own names where it has them.
  in.prefill_tokens = a.count_input("serving.prompt_tokens", "--prefill-tokens");
  in.decode_tokens = a.count_input("serving.decode_tokens");
  in.budget_seconds = a.input("serving.latency_budget_seconds", "--budget-s");
  in.overhead_seconds = a.input("serving.overhead_seconds");
  in.batch = a.optional_count_input("serving.batch", "--batch").value_or(1);
  in.bytes_per_param = a.real("--bytes-per-param", 2, 1e-3, 8, "bytes");
  a.finish();
  const TurnLatency t = interactive_latency(in);
  // The panel's latency verdict. Here a budget at or below the fixed overhead
  // is refused (status 2) with the library's own message naming both.
  const ServingNeed need = serving_need(in);
  if (need.verdict == LatencyVerdict::below_overhead) (void)chips_for_latency_budget(in);
  const std::optional<std::int64_t> chips = need.chips_for_budget;
  const std::int64_t hold = need.chips_to_hold_weights;
  if (json) {
    QJsonObject o{{"prefill_seconds", t.prefill_seconds},   {"decode_seconds", t.decode_seconds},
                  {"overhead_seconds", t.overhead_seconds}, {"total_seconds", t.total_seconds},
                  {"budget_seconds", in.budget_seconds},    {"meets_budget", t.meets_budget},
                  {"chips_to_hold_weights", json_int(hold)}};
    o["chips_for_budget"] = chips ? json_int(*chips) : QJsonValue();
    o["deploy_chips"] = need.deploy_chips ? json_int(*need.deploy_chips) : QJsonValue();
    o["deploy_bound"] = need.deploy_chips
                            ? QJsonValue(need.deploy_latency_bound ? QStringLiteral("latency")
                                                                   : QStringLiteral("memory"))
                            : QJsonValue();
    print_json(o);
    return 0;
  }
  std::printf("Interactive turn: %s params on %lld x %s (batch %lld, %s bytes/param)\n",
              format_count(in.n_params).c_str(), static_cast<long long>(in.n_chips),
              in.chip.c_str(), static_cast<long long>(in.batch),
              format_grouped(in.bytes_per_param, 2).c_str());
  row("prefill", format_seconds(t.prefill_seconds) + " (" +
                     format_grouped(static_cast<double>(in.prefill_tokens)) +
                     " tokens, 2N FLOPs each, compute-bound)");
  row("decode", format_seconds(t.decode_seconds) + " (" +
                    format_grouped(static_cast<double>(in.decode_tokens)) +
                    " tokens, every weight re-read each step, memory-bound)");
  row("overhead", format_seconds(t.overhead_seconds));
  row("total", format_seconds(t.total_seconds) + (t.meets_budget ? "  OK" : "  MISS") +
                   " (budget " + format_seconds(in.budget_seconds) + ")");
  row("chips for the budget", chips ? std::to_string(*chips) + " (smallest power-of-two slice)"
                                    : std::string("none: no slice of up to ") +
                                          std::to_string(in.max_chips) +
                                          " chips meets it; the answer is a smaller model");
  row("chips to hold weights", std::to_string(hold));
  if (need.deploy_chips)
    row("chips to deploy",
        std::to_string(*need.deploy_chips) +
            (need.deploy_latency_bound ? " (latency-bound)" : " (memory-bound)"));
  return 0;
}

int run_decode_intensity(Args& a) {
  const bool json = a.flag("--json");
  DecodeShape s;
  s.n_params = a.required_real("--params", 1, 1e18, "parameters");
  s.n_layers = a.required_integer("--layers", 1, 100'000, "blocks");
  s.n_kv_heads = a.required_integer("--kv-heads", 1, 100'000, "KV heads");
  s.d_head = a.required_integer("--head-dim", 1, 100'000, "elements");
  s.seq_len = a.required_count_input("training.seq_len");
  const std::int64_t batch = a.required_integer("--batch", 1, 1'000'000'000, "requests");
  a.finish();
  const double intensity = decode_batch_intensity(s, batch);
  const std::int64_t kv =
      kv_cache_bytes(s.n_layers, s.n_kv_heads, s.d_head, s.seq_len, batch, s.kv_bytes_per_elem);
  const double weights = s.n_params * s.bytes_per_param;
  const double kv_share = kv_share_of_bytes(weights, static_cast<double>(kv));
  if (json) {
    print_json(QJsonObject{{"intensity", intensity},
                           {"weight_bytes", weights},
                           {"kv_bytes", json_int(kv)},
                           {"kv_share_of_bytes", kv_share}});
    return 0;
  }
  std::printf("Decode step at batch %lld (weights read once, KV cache per request)\n",
              static_cast<long long>(batch));
  row("arithmetic intensity", fixed(intensity, 2) + " FLOP/byte");
  row("weights read", format_bytes(weights));
  row("KV cache read",
      format_bytes(static_cast<double>(kv)) + " (" + format_percent(kv_share) + " of bytes)");
  for (const Chip& c : hardware_table())
    if (c.name == "H100" || c.name == "TPU v5e")
      row(("vs " + std::string(c.name) + " ridge").c_str(),
          format_percent(decode_intensity_point(c, s, batch).fraction_of_ridge) + " of the way");
  return 0;
}

int run_tile(Args& a) {
  const bool json = a.flag("--json");
  const std::int64_t dim = a.required_integer("--dim", 1, 100'000'000, "elements");
  const std::int64_t tile = a.integer("--tile", 128, 1, 65'536, "elements per side");
  a.finish();
  const TilePoint p = tile_efficiency_sweep(dim, dim, tile).front();
  if (json) {
    print_json(QJsonObject{{"efficiency", p.efficiency},
                           {"padded_dim", json_int(p.padded_dim)},
                           {"tile", json_int(tile)}});
    return 0;
  }
  std::printf("Tile quantization (tile %lld)\n", static_cast<long long>(tile));
  row("dimension", format_grouped(dim) + " -> padded " + format_grouped(p.padded_dim));
  row("efficiency", format_percent(p.efficiency) + " of the padded matmul is real work");
  return 0;
}

int run_mfu(Args& a) {
  const bool json = a.flag("--json");
  MfuBudgetInputs in;
  in.matmul_seconds = a.required_real("--matmul-s", 0, 1e15, "s");
  in.vector_seconds = a.required_real("--vector-s", 0, 1e15, "s");
  in.memory_seconds = a.required_real("--memory-s", 0, 1e15, "s");
  in.comms_seconds = a.required_real("--comms-s", 0, 1e15, "s");
  in.optimizer_seconds = a.required_real("--optimizer-s", 0, 1e15, "s");
  a.finish();
  const MfuBudget b = mfu_budget(in);
  if (json) {
    print_json(
        QJsonObject{{"mfu", b.mfu},
                    {"vector_fraction", b.vector_fraction},
                    {"memory_fraction", b.memory_fraction},
                    {"comms_fraction", b.comms_fraction},
                    {"optimizer_fraction", b.optimizer_fraction},
                    {"total_seconds", b.total_seconds},
                    {"biggest_lever", QString::fromUtf8(to_string(b.biggest_lever).data())}});
    return 0;
  }
  std::printf("MFU budget (%s of wall-clock)\n", format_seconds(b.total_seconds).c_str());
  row("MFU (matmul busy)", format_percent(b.mfu));
  row("lost to vector", format_percent(b.vector_fraction));
  row("lost to memory", format_percent(b.memory_fraction));
  row("lost to comms", format_percent(b.comms_fraction));
  row("lost to optimizer", format_percent(b.optimizer_fraction));
  row("biggest lever", std::string(to_string(b.biggest_lever)));
  return 0;
}

}  // namespace

std::vector<Command> roofline_commands() {
  return {
      {"roofline", "roofline --chip H100 --flops F --bytes B", run_roofline},
      {"latency",
       "latency --params N --chip \"TPU v5e\" --chips C [--prefill-tokens 8192] "
       "[--decode-tokens 128] [--budget-s 1.0] [--overhead-s 0.25] [--batch 1] "
       "[--bytes-per-param 2]",
       run_latency},
      {"decode-intensity",
       "decode-intensity --params N --layers L --kv-heads K --head-dim HD --seq T --batch B",
       run_decode_intensity},
      {"tile", "tile --dim D [--tile 128]", run_tile},
      {"mfu", "mfu --matmul-s S --vector-s S --memory-s S --comms-s S --optimizer-s S", run_mfu},
  };
}

}  // namespace napkin::cli
