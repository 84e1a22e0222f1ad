#include "lifetime_dollars.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "format.h"
#include "hardware.h"
#include "minimize.h"
#include "serving.h"
#include "serving_search.h"
#include "validate.h"

namespace napkin {

namespace {
constexpr double kSecondsPerHour = 3600.0;
constexpr std::int64_t kMaxServingChips = 4096;
constexpr int kRateGrid = 48;  // serving rates tabulated over log N for the search

// Rental plus energy at the wall for one chip-hour (cost_report()'s terms).
double chip_hour_dollars(const Chip& chip, const CostInputs& cost) {
  return cost.price_per_chip_hour_dollars + chip.watts * cost.pue / 1000.0 * cost.kwh_price_dollars;
}
}  // namespace

std::string_view to_string(Objective objective) {
  return objective == Objective::flops ? "flops" : "dollars";
}

Objective parse_objective(std::string_view text, std::string_view param) {
  if (text == "flops") return Objective::flops;
  if (text == "dollars") return Objective::dollars;
  throw std::invalid_argument(std::string(param) + " must be one of flops, dollars; got \"" +
                              std::string(text.substr(0, 40)) + "\"");
}

void ServingEconomy::validate() const {
  (void)chip_by_name(chip);
  require_real(cost.price_per_chip_hour_dollars, "serving_price", "$ per chip-hour", 0.0, 1e4);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
  require_count(node_chips, "serving_chips", "chips", 1, kMaxServingChips);
  require_count(batch, "serving_batch", "requests", 1, 1'000'000'000);
  require_count(prompt_tokens, "prompt_tokens", "tokens", 1, 1'000'000'000);
  require_count(decode_tokens, "decode_tokens", "tokens", 1, 1'000'000'000);
  (void)engine_by_name(engine, "engine");
}

void TrainingEconomy::validate() const {
  (void)chip_by_name(chip);
  require_real(mfu, "mfu", "fraction of peak", 0.0, 1.0, true);
  require_real(goodput, "goodput", "fraction of wall-clock", 0.0, 1.0, true);
  require_real(cost.price_per_chip_hour_dollars, "price", "$ per chip-hour", 0.0, 1e4);
  require_real(cost.kwh_price_dollars, "kwh_price", "$ per kWh", 0.0, 100.0);
  require_real(cost.pue, "pue", "facility W per IT W", 1.0, 5.0);
}

constexpr double kMaxServedParams = 1e14;

ServingRate serving_rate(double n_params, const ServingEconomy& e) {
  e.validate();
  require_real(n_params, "params", "parameters", 1e6, 1e15);
  const Chip& chip = chip_by_name(e.chip);
  // The serving model's shapes stop at 1e14 parameters: a larger model fits
  // no slice that Napkin prices (found by the widget torture test).
  if (n_params > kMaxServedParams) return {};
  const ServingModel model = serving_model(n_params);
  ServingInputs in;
  in.chip = e.chip;
  in.batch = e.batch;
  in.prompt_tokens = e.prompt_tokens;
  in.decode_tokens = e.decode_tokens;
  in.weights = e.weights;
  in.kv = e.kv;
  in.engine = e.engine;
  in.overhead_seconds = 0;  // the scaffolding's wait does not occupy the chips
  in.cost = e.cost;
  // A served token is a prompt or a generated token of a turn, as 2N·S
  // counts them: the steady state's generated tokens per second carry their
  // turn's prompt tokens with them.
  const double per_generated =
      static_cast<double>(e.prompt_tokens + e.decode_tokens) / static_cast<double>(e.decode_tokens);
  ServingRate best;
  for (std::int64_t chips = 1; chips <= kMaxServingChips; chips *= 2) {
    // Past the node only while nothing has fit: the model must be served somewhere.
    if (chips > e.node_chips && best.fits) break;
    const auto layout = fastest_layout(model, in, chips);
    if (!layout) continue;
    in.layout = *layout;
    const ServingResult r = evaluate_serving(model, in);
    if (!r.fits || !(r.tokens_per_second_per_chip > 0)) continue;
    const double rate = r.tokens_per_second_per_chip * per_generated;
    if (best.fits && rate <= best.tokens_per_second_per_chip) continue;
    best.fits = true;
    best.chips = chips;
    best.layout = describe(*layout);
    best.tokens_per_second_per_chip = rate;
  }
  if (best.fits) {
    best.dollars_per_token =
        chip_hour_dollars(chip, e.cost) / (best.tokens_per_second_per_chip * kSecondsPerHour);
    best.joules_per_token = chip.watts * e.cost.pue / best.tokens_per_second_per_chip;
  }
  return best;
}

namespace {

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// Every input serving_rate() reads, compared exactly (the prices by their bits).
bool same_serving_economy(const ServingEconomy& a, const ServingEconomy& b) {
  return a.chip == b.chip && a.engine == b.engine &&
         same_bits(a.cost.price_per_chip_hour_dollars, b.cost.price_per_chip_hour_dollars) &&
         same_bits(a.cost.kwh_price_dollars, b.cost.kwh_price_dollars) &&
         same_bits(a.cost.pue, b.cost.pue) && a.node_chips == b.node_chips && a.batch == b.batch &&
         a.prompt_tokens == b.prompt_tokens && a.decode_tokens == b.decode_tokens &&
         a.weights == b.weights && a.kv == b.kv;
}

// The rates of the last few serving economies, each by N's bits. A chip
// name and an engine name stand for fixed specifications (a chip file may
// add a name, never change one), so a remembered rate never goes stale.
// Bounded: a plan asks for about 50 sizes, a chip-count slider has 16
// positions; a table past its bound starts again empty.
constexpr std::size_t kRateMemoEconomies = 4;
constexpr std::size_t kRateMemoSizes = 4096;

struct RateTable {
  ServingEconomy economy;
  std::unordered_map<std::uint64_t, ServingRate> by_params;
};

struct RateMemo {
  std::mutex mutex;
  std::vector<RateTable> tables;  // the most recently used first
};

RateMemo& rate_memo() {
  static RateMemo memo;
  return memo;
}

// The economy's table, moved to the front; nullptr when there is none.
RateTable* find_table(RateMemo& memo, const ServingEconomy& e) {
  auto it = std::find_if(memo.tables.begin(), memo.tables.end(),
                         [&](const RateTable& t) { return same_serving_economy(t.economy, e); });
  if (it == memo.tables.end()) return nullptr;
  std::rotate(memo.tables.begin(), it, it + 1);
  return &memo.tables.front();
}

}  // namespace

ServingRate memoized_serving_rate(double n_params, const ServingEconomy& e) {
  const std::uint64_t key = std::bit_cast<std::uint64_t>(n_params);
  RateMemo& memo = rate_memo();
  {
    // Only rates serving_rate() returned are kept, so a hit's inputs were
    // validated when it was computed; a miss validates below.
    std::lock_guard lock(memo.mutex);
    if (RateTable* t = find_table(memo, e)) {
      const auto hit = t->by_params.find(key);
      if (hit != t->by_params.end()) return hit->second;
    }
  }
  ServingRate r = serving_rate(n_params, e);  // outside the lock: the search is the slow part
  std::lock_guard lock(memo.mutex);
  RateTable* t = find_table(memo, e);
  if (!t) {
    if (memo.tables.size() >= kRateMemoEconomies) memo.tables.pop_back();
    memo.tables.insert(memo.tables.begin(), RateTable{e, {}});
    t = &memo.tables.front();
  }
  if (t->by_params.size() >= kRateMemoSizes) t->by_params.clear();
  t->by_params.emplace(key, r);
  return r;
}

double training_dollars(double active_params, double tokens, const TrainingEconomy& e) {
  e.validate();
  require_positive(active_params, "params", "parameters");
  require_positive(tokens, "train_tokens", "tokens");
  const Chip& chip = chip_by_name(e.chip);
  const double chip_hours =
      6.0 * active_params * tokens / (chip.peak_flops_per_s * e.mfu * e.goodput) / kSecondsPerHour;
  return chip_hours * chip_hour_dollars(chip, e.cost);
}

LifetimeBill lifetime_bill(double params, double train_tokens, double served_tokens,
                           const TrainingEconomy& training, const ServingEconomy& serving) {
  require_real(served_tokens, "served_tokens", "tokens", 0.0, 1e22);
  LifetimeBill b;
  b.params = params;
  b.train_tokens = train_tokens;
  b.train_dollars = training_dollars(params, train_tokens, training);
  b.serving = memoized_serving_rate(params, serving);
  b.serve_dollars = b.serving.fits ? served_tokens * b.serving.dollars_per_token : 0.0;
  b.total_dollars = b.train_dollars + b.serve_dollars;
  return b;
}

DollarPlan plan_lifetime_dollars(double ref_params, double ref_tokens, double served_tokens,
                                 const ServedLoss& served, const TrainingEconomy& training,
                                 const ServingEconomy& serving) {
  require_positive(ref_params, "params", "parameters");
  require_positive(ref_tokens, "train_tokens", "tokens");
  const DataConstrainedLaw& law = served.law;
  DollarPlan p;
  p.served_tokens = served_tokens;
  p.loss = served.loss(ref_params, ref_tokens);
  p.reference = lifetime_bill(ref_params, ref_tokens, served_tokens, training, serving);
  p.same_loss = p.reference;
  if (!p.reference.serving.fits) return p;

  // The serving side tabulated over log N (a layout search per point, each
  // remembered for the next plan with these serving inputs), then
  // interpolated: the minimiser asks hundreds of times.
  const double lo = std::log(std::max(law.base.min_params_for_loss(p.loss), 1e6)) + 1e-6;
  const double hi = std::log(std::min(ref_params * 4.0, kMaxServedParams));
  if (!(hi > lo)) return p;
  std::array<double, kRateGrid + 1> per_token{};
  for (int i = 0; i <= kRateGrid; ++i) {
    const ServingRate r = memoized_serving_rate(std::exp(lo + (hi - lo) * i / kRateGrid), serving);
    per_token[i] = r.fits ? r.dollars_per_token : std::numeric_limits<double>::infinity();
  }
  auto serve_per_token = [&](double log_n) {
    const double x = std::clamp((log_n - lo) / (hi - lo) * kRateGrid, 0.0, double(kRateGrid));
    const int i = std::min(static_cast<int>(x), kRateGrid - 1);
    const double f = x - i;
    return per_token[i] * (1 - f) + per_token[i + 1] * f;
  };
  auto cost = [&](double log_n) {
    const double n = std::exp(log_n);
    const auto d = served.tokens_for(n, p.loss);
    const double s = serve_per_token(log_n);
    if (!d || !std::isfinite(s)) return std::numeric_limits<double>::max();
    return training_dollars(n, *d, training) + served_tokens * s;
  };
  const double n = std::exp(minimize_1d(cost, lo, hi));
  const auto d = served.tokens_for(n, p.loss);
  if (d) {
    const LifetimeBill b = lifetime_bill(n, *d, served_tokens, training, serving);
    if (b.serving.fits && b.total_dollars < p.reference.total_dollars) p.same_loss = b;
  }
  const LifetimeBill& a = p.reference;
  const LifetimeBill& b = p.same_loss;
  const double da = a.serving.dollars_per_token, db = b.serving.dollars_per_token;
  if (da != db) {
    const double s = (b.train_dollars - a.train_dollars) / (da - db);
    if (s > 0 && std::isfinite(s)) p.crossover_served_tokens = s;
  }
  p.recommend_smaller = b.params < a.params && b.total_dollars < 0.95 * a.total_dollars;
  return p;
}

std::string dollar_plan_text(const DollarPlan& p, const std::string& law_name) {
  const LifetimeBill& a = p.reference;
  const LifetimeBill& b = p.same_loss;
  auto bill = [](const LifetimeBill& x) {
    return format_dollars(x.total_dollars) + " (" + format_dollars(x.train_dollars) +
           " training, " + format_dollars(x.serve_dollars) + " serving at " +
           format_grouped(x.serving.tokens_per_second_per_chip, 0) + " tokens/s per chip on " +
           x.serving.layout + ")";
  };
  if (!a.serving.fits)
    return "Lifetime dollars: the reference model fits no serving slice of up to 4,096 chips, so "
           "its serving bill is not priced.";
  std::string s = "Lifetime dollars over " + format_count(p.served_tokens, 1) +
                  " served tokens (training chip-hours at the training price, serving chip-hours "
                  "from the serving layout's throughput at the serving price, energy at the "
                  "wall on both): " +
                  format_count(a.params) + " parameters cost " + bill(a);
  if (p.recommend_smaller) {
    s += "; " + format_count(b.params) + " parameters on " + format_count(b.train_tokens, 2) +
         " tokens reach the same loss (" + format_grouped(p.loss, 3) + " nats under " + law_name +
         ") for " + bill(b) + ", " + format_grouped(a.total_dollars / b.total_dollars, 2) +
         "x less; it pays off after " +
         (p.crossover_served_tokens ? format_count(*p.crossover_served_tokens, 1)
                                    : std::string("0")) +
         " served tokens.";
  } else {
    s += "; the dollar-optimal model at the same loss is " + format_count(b.params) +
         " parameters, within 5 % of that bill.";
  }
  return s;
}

}  // namespace napkin
