// The flags of registered scenario inputs (inputs.h): every command that
// reads one accepts and refuses exactly what the registry says, which is what
// the scenario file and the GUI's control accept.
#include <gtest/gtest.h>

#include <cmath>

#include <QJsonArray>
#include <QJsonObject>

#include "choices.h"
#include "cli_runner.h"
#include "inputs.h"
#include "switches.h"

using namespace napkin;

namespace {

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// A value as a flag's text: whole numbers in full, others with 17 digits.
QString number(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 17);
}

// The command line that reads `flag` (with what else the command needs).
QStringList command_for(std::string_view flag) {
  // The training step's and the cluster's flags belong to parallel.
  if (flag == "--seq" || flag == "--gpus-per-node" || flag == "--scale-up-gb-per-s" ||
      flag == "--scale-out-gb-per-s" || flag == "--non-tensor-gb")
    return {QStringLiteral("parallel"), QStringLiteral("--preset"), QStringLiteral("Llama-3-70B")};
  // The Serving layout tab's benchmark run belongs to serve's server mode.
  if (flag == "--request-rate" || flag == "--requests" || flag == "--prompt-spread" ||
      flag == "--output-spread")
    return {QStringLiteral("serve"),  QStringLiteral("--params"), QStringLiteral("7e9"),
            QStringLiteral("--chip"), QStringLiteral("H100"),     QStringLiteral("--chips"),
            QStringLiteral("1"),      QStringLiteral("--mode"),   QStringLiteral("server")};
  // The training tokens are train-this-model's (budget with --params).
  if (flag == "--tokens")
    return {QStringLiteral("budget"), QStringLiteral("--params"), QStringLiteral("7e9")};
  // The model's shape belongs to params, by hand: its other required numbers.
  if (const ScenarioInput* in = scenario_input_by_flag(flag); in && in->section == "model") {
    QStringList args{QStringLiteral("params")};
    for (const auto& [f, v] :
         {std::pair{"--layers", "32"}, std::pair{"--d-model", "4096"}, std::pair{"--d-ff", "11008"},
          std::pair{"--heads", "32"}, std::pair{"--vocab", "32000"}})
      if (flag != f) args << QLatin1String(f) << QLatin1String(v);
    return args;
  }
  return {QStringLiteral("budget")};
}

void expect_refused(const QStringList& args, const ScenarioInput& in, const QString& value) {
  const CliResult r = run_cli(args + QStringList{qs(in.flag), value});
  EXPECT_EQ(r.exit_code, 2) << args.join(QLatin1Char(' ')).toStdString() << " " << in.flag << " "
                            << value.toStdString();
  const std::string expected = std::string(in.flag) + " must be " + input_flag_accepted_text(in);
  EXPECT_NE(r.err.toStdString().find(expected), std::string::npos)
      << "expected \"" << expected << "\" in: " << r.err.toStdString();
}

}  // namespace

TEST(CliInputs, EveryCommandRefusesTheSameChipsAsTheGuiAndTheFile) {
  const ScenarioInput& chips = scenario_input("hardware.chips");
  const QStringList model{QStringLiteral("--params"), QStringLiteral("7e10"),
                          QStringLiteral("--chip"), QStringLiteral("H100")};
  const std::vector<QStringList> commands = {
      {QStringLiteral("budget")},
      {QStringLiteral("parallel"), QStringLiteral("--preset"), QStringLiteral("Llama-3-70B")},
      QStringList{QStringLiteral("serve")} + model,
      QStringList{QStringLiteral("latency")} + model,
  };
  for (const QStringList& command : commands) {
    SCOPED_TRACE(command.join(QLatin1Char(' ')).toStdString());
    expect_refused(command, chips, number(chips.hi + 1));
    expect_refused(command, chips, QStringLiteral("0"));
    expect_refused(command, chips, QStringLiteral("2.5"));
  }
}

TEST(CliInputs, EachFlaggedInputRefusesJustBeyondItsRange) {
  for (const ScenarioInput& in : scenario_inputs()) {
    if (in.flag.empty()) continue;
    SCOPED_TRACE(std::string(in.key));
    const double above = in.type == InputType::count ? in.hi + 1 : in.hi * (1 + 1e-9) + 1e-9;
    expect_refused(command_for(in.flag), in, number(input_flag_value(in, above)));
    if (in.lo > 0) {
      const double below = in.type == InputType::count ? in.lo - 1 : in.lo * (1 - 1e-6);
      expect_refused(command_for(in.flag), in, number(input_flag_value(in, below)));
    }
  }
}

// A flag's range is said in the number the flag takes: --mfu takes a fraction
// (its control shows percent), --storage-gb-per-s-per-chip GB/s (the file
// holds bytes/s).
TEST(CliInputs, AFlagsRangeIsInTheFlagsOwnUnit) {
  CliResult r = run_cli({QStringLiteral("budget"), QStringLiteral("--mfu"), QStringLiteral("5")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.toStdString().find("--mfu must be a number in 0.001 – 1 fraction of peak"),
            std::string::npos)
      << r.err.toStdString();
  r = run_cli({QStringLiteral("budget"), QStringLiteral("--storage-gb-per-s-per-chip"),
               QStringLiteral("0.0001")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.toStdString().find(
                "--storage-gb-per-s-per-chip must be a number in 0.001 – 10,000 GB/s"),
            std::string::npos)
      << r.err.toStdString();
  // Round numbers stay round both ways.
  const ScenarioInput& storage = scenario_input("goodput.storage_bytes_per_s_per_chip");
  EXPECT_EQ(input_flag_value(storage, 2.5e8), 0.25);
  EXPECT_EQ(input_from_flag(storage, 0.25), 2.5e8);
  EXPECT_EQ(input_from_flag(storage, 0.122), 1.22e8);
  // 0.5 GB/s per chip is 5e8 bytes/s: a checkpoint's bytes over 64 chips.
  r = run_cli({QStringLiteral("budget"), QStringLiteral("--params"), QStringLiteral("7e9"),
               QStringLiteral("--chips"), QStringLiteral("64"),
               QStringLiteral("--storage-gb-per-s-per-chip"), QStringLiteral("0.5"),
               QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const double bytes = r.json[QStringLiteral("checkpoint_bytes")].toDouble();
  ASSERT_GT(bytes, 0);
  EXPECT_NEAR(r.json[QStringLiteral("checkpoint_write_min")].toDouble(), bytes / (5e8 * 64) / 60,
              1e-9 * bytes / (5e8 * 64) / 60);
}

TEST(CliInputs, TheDefaultsAreTheRegistrys) {
  const CliResult r = run_cli({QStringLiteral("budget"), QStringLiteral("--json")});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_EQ(r.json[QStringLiteral("chips")].toInteger(),
            static_cast<qint64>(scenario_input("hardware.chips").default_value));
  EXPECT_DOUBLE_EQ(r.json[QStringLiteral("days")].toDouble(),
                   scenario_input("budget.days").default_value);
  EXPECT_DOUBLE_EQ(r.json[QStringLiteral("mfu")].toDouble(),
                   scenario_input("budget.mfu").default_value);
}

// The serving turn is registered: budget, serve and latency (under its own
// --prefill-tokens and --budget-s) refuse the same values with the same range
// as the Roofline's controls and the scenario file (they accepted 10x more
// prompt tokens and a thousand times the overhead before, each its own way).
TEST(CliInputs, TheServingTurnIsRefusedAlikeEverywhere) {
  const ScenarioInput& prompt = scenario_input("serving.prompt_tokens");
  const QString beyond = number(prompt.hi + 1);
  const QStringList model{QStringLiteral("--params"), QStringLiteral("7e10"),
                          QStringLiteral("--chip"),   QStringLiteral("H100"),
                          QStringLiteral("--chips"),  QStringLiteral("8")};
  const std::string expected = " must be " + input_accepted_text(prompt);
  for (const auto& [command, flag] :
       {std::pair{QStringList{QStringLiteral("budget")}, "--prompt-tokens"},
        std::pair{QStringList{QStringLiteral("serve")} + model, "--prompt-tokens"},
        std::pair{QStringList{QStringLiteral("latency")} + model, "--prefill-tokens"}}) {
    SCOPED_TRACE(command.front().toStdString());
    const CliResult r = run_cli(command + QStringList{QLatin1String(flag), beyond});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.toStdString().find(std::string(flag) + expected), std::string::npos)
        << r.err.toStdString();
  }
  const ScenarioInput& overhead = scenario_input("serving.overhead_seconds");
  const CliResult r = run_cli(QStringList{QStringLiteral("latency")} + model +
                              QStringList{QStringLiteral("--overhead-s"), QStringLiteral("2e6")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.toStdString().find("--overhead-s must be " + input_accepted_text(overhead)),
            std::string::npos)
      << r.err.toStdString();
}

namespace {

// A serving and a layout search that run in a moment, for the flags' tests.
QStringList serve_command() {
  return {QStringLiteral("serve"),  QStringLiteral("--params"), QStringLiteral("7e9"),
          QStringLiteral("--chip"), QStringLiteral("H100"),     QStringLiteral("--chips"),
          QStringLiteral("8")};
}
QStringList parallel_command() {
  return {QStringLiteral("parallel"), QStringLiteral("--preset"), QStringLiteral("Llama-3-8B"),
          QStringLiteral("--chips"),  QStringLiteral("8"),        QStringLiteral("--top"),
          QStringLiteral("1")};
}

}  // namespace

// Each registered choice (choices.h) is one set of names for every command:
// every command whose usage names its flag accepts every option, refuses an
// unknown name with the same list, and its usage lists the options the
// registry holds (or the default alone).
TEST(CliInputs, EveryChoiceTakesTheRegistrysOptionsInEveryCommand) {
  const std::vector<QStringList> commands{
      {QStringLiteral("budget")},
      serve_command(),
      parallel_command(),
      {QStringLiteral("memory"), QStringLiteral("--params"), QStringLiteral("7e9"),
       QStringLiteral("--batch"), QStringLiteral("1"), QStringLiteral("--seq"),
       QStringLiteral("2048"), QStringLiteral("--d-model"), QStringLiteral("4096"),
       QStringLiteral("--layers"), QStringLiteral("32")},
      {QStringLiteral("isoflops")},
      {QStringLiteral("fit"), QStringLiteral("--csv"),
       QStringLiteral(NAPKIN_TEST_DATA "/chinchilla_besiroglu2024/svg_extracted_data.csv"),
       QStringLiteral("--n-col"), QStringLiteral("Model Size"), QStringLiteral("--c-col"),
       QStringLiteral("Training FLOP")}};
  for (const ScenarioChoice& c : scenario_choices()) {
    if (c.flag.empty()) continue;
    SCOPED_TRACE(std::string(c.key));
    const QString listed = qs(choice_names(c)).replace(QStringLiteral(", "), QStringLiteral("|"));
    int readers = 0;
    for (const QStringList& command : commands) {
      const CliResult help = run_cli({command.front(), QStringLiteral("--help")});
      // The command's own usage, before the alternative "--scenario FILE"
      // (whose flags CliInputs.ScenarioCommandsTakeTheirChoicesBesideTheFile
      // checks).
      const QString usage = help.out.left(help.out.indexOf(QStringLiteral("--scenario FILE")));
      // The flag where the usage names it: "[--flag a|b]" or, inside a
      // group, " --flag a|b]".
      const QString flag = qs(c.flag) + QLatin1Char(' ');
      qsizetype at = usage.indexOf(QLatin1Char('[') + flag);
      if (at < 0) at = usage.indexOf(QLatin1Char(' ') + flag);
      if (at < 0) continue;  // not this command's
      ++readers;
      const QString shown = usage.mid(at + 1 + flag.size()).section(QLatin1Char(']'), 0, 0);
      EXPECT_TRUE(shown == listed || shown == qs(c.default_name))
          << command.front().toStdString() << " " << c.flag << " lists '" << shown.toStdString()
          << "', not '" << listed.toStdString() << "'";
      for (const ChoiceOption& o : c.options()) {
        const CliResult r = run_cli(command + QStringList{qs(c.flag), qs(o.name), "--json"});
        EXPECT_EQ(r.exit_code, 0) << command.front().toStdString() << " " << c.flag << " " << o.name
                                  << ": " << r.err.toStdString();
      }
      const CliResult bad =
          run_cli(command + QStringList{qs(c.flag), QStringLiteral("no-such-option")});
      EXPECT_EQ(bad.exit_code, 2);
      EXPECT_TRUE(bad.err.contains(qs(std::string(c.flag) + " must be one of " + choice_names(c))))
          << bad.err.toStdString();
    }
    EXPECT_GT(readers, 0) << "no command reads " << c.flag;
  }
}

// Beside --scenario FILE, a panel's command takes the choices its view reads
// (scenario_command_choices), every option of each, each replacing the
// file's value and said among the overrides; its usage names the flag there.
TEST(CliInputs, ScenarioCommandsTakeTheirChoicesBesideTheFile) {
  const QString file =
      QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-h100-30d.napkin.json");
  for (const char* command : {"budget", "serve", "parallel", "isoflops"}) {
    const QString name = QString::fromUtf8(command);
    const std::vector<std::string_view> keys = scenario_command_choices(command);
    EXPECT_FALSE(keys.empty()) << command;
    const CliResult help = run_cli({name, QStringLiteral("--help")});
    const QString beside = help.out.mid(help.out.indexOf(QStringLiteral("--scenario FILE")));
    for (std::string_view key : keys) {
      const ScenarioChoice& c = scenario_choice(key);
      SCOPED_TRACE(std::string(command) + " " + std::string(c.flag));
      if (std::string_view(command) != "budget") {  // budget's says "any scenario choice"
        EXPECT_TRUE(beside.contains(QLatin1Char('[') + qs(c.flag) + QLatin1Char(' ')))
            << beside.toStdString();
      }
      for (const ChoiceOption& o : c.options()) {
        const CliResult r =
            run_cli({name, QStringLiteral("--scenario"), file, qs(c.flag), qs(o.name), "--json"});
        ASSERT_EQ(r.exit_code, 0) << o.name << ": " << r.err.toStdString();
        QJsonArray overrides = r.json[QStringLiteral("overrides")].toArray();
        if (overrides.isEmpty())
          overrides = r.json[QStringLiteral("scenario")][QStringLiteral("overrides")].toArray();
        ASSERT_EQ(overrides.size(), 1) << o.name << ": " << r.out.toStdString().substr(0, 400);
        EXPECT_EQ(overrides[0].toObject()[QStringLiteral("flag")].toString(), qs(c.flag));
      }
    }
  }
}

// Every registered switch with a flag is read by a command that lists the
// flag in its usage, and the command runs with it.
TEST(CliInputs, EverySwitchFlagIsTakenByACommandThatListsIt) {
  const std::vector<QStringList> commands{
      {QStringLiteral("params"), QStringLiteral("--d-model"), QStringLiteral("1024"),
       QStringLiteral("--layers"), QStringLiteral("8"), QStringLiteral("--heads"),
       QStringLiteral("8"), QStringLiteral("--d-ff"), QStringLiteral("4096"),
       QStringLiteral("--vocab"), QStringLiteral("32000")},
      {QStringLiteral("moe"), QStringLiteral("collapse"), QStringLiteral("--steps"),
       QStringLiteral("20")},
      {QStringLiteral("budget")},
      serve_command(),
      parallel_command()};
  for (const ScenarioSwitch& w : scenario_switches()) {
    if (w.flag.empty()) continue;
    SCOPED_TRACE(std::string(w.key));
    int readers = 0;
    for (const QStringList& command : commands) {
      const CliResult help = run_cli({command.front(), QStringLiteral("--help")});
      if (!help.out.contains(QLatin1Char('[') + qs(w.flag) + QLatin1Char(']'))) continue;
      ++readers;
      const CliResult r = run_cli(command + QStringList{qs(w.flag), QStringLiteral("--json")});
      EXPECT_EQ(r.exit_code, 0) << command.front().toStdString() << " " << w.flag << ": "
                                << r.err.toStdString();
    }
    EXPECT_GT(readers, 0) << "no command lists [" << w.flag << "]";
  }
}
