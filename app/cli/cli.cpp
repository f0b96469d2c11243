// gpuplanner-cli: the commands, their arguments and the usage text. The
// catalog with the user overlay comes from core/hardware/userconfig.h, as in the app.
#include "cli.h"

#include "filewrite.h"
#include "listings.h"

#include "core/fit/calibrate.h"
#include "core/calibration/calibration.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/base/fileread.h"
#include "core/engines/launch.h"
#include "core/engines/enginecatalog.h"
#include "core/fit/record.h"
#include "core/plan/planner.h"
#include "core/plan/rentbuy.h"
#include "core/rules/rules.h"
#include "core/scenario/scenario.h"
#include "core/hardware/userconfig.h"
#include "core/fit/validate.h"
#include "core/fit/validatemlperf.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace gp::cli {

namespace {

constexpr std::size_t kMaxInputBytes = 16u << 20;

const char* kUsage =
    "Usage: gpuplanner-cli COMMAND [ARGS]\n"
    "\n"
    "Which GPU to rent or buy, and how many, for training and inference.\n"
    "\n"
    "Commands:\n"
    "  estimate FILE [--gpu ID]... [--format json|table|csv] [--explain] [--calibration CAL]\n"
    "                       estimate a scenario (.gpuplan.json) on each GPU\n"
    "  plan FILE [--top N] [--confidence P] [--format json|table] [--calibration CAL]\n"
    "                       search GPU type x count x TP/PP/ZeRO x precision x batch;\n"
    "                       the cheapest configurations that fit and meet the targets\n"
    "  rent-vs-buy FILE [--gpu ID]... [--format json|table]\n"
    "                       renting on-demand/spot/reserved vs owning: monthly curves, break-even\n"
    "  rules [--format json|table]    the seed articles' rules of thumb, recomputed\n"
    "  gpus [--format json|table]     the GPU catalog (built-in + user overlay)\n"
    "  presets [--format json|table]  the built-in model presets\n"
    "  validate DIR... [--family-dir DIR]... [--format table|json] [--summary] [--check] [--cross]\n"
    "           [--calibration CAL]\n"
    "                       predicted vs measured for every measured record in DIR\n"
    "                       (--check: exit 1 when a metric is over its bound;\n"
    "                       --cross: leave-one-out error beside the in-sample one, per\n"
    "                       architecture family, and the coverage of the 90% intervals)\n"
    "  calibrate DIR... [--family-dir DIR]... -o FILE [--calibration START]\n"
    "                       fit the calibration's fitted constants to the records in DIR;\n"
    "                       --family-dir records fit only their GPU family's constants\n"
    "  report FILE -o OUT.pdf [--calibration CAL]  the PDF comparison report, headless\n"
    "  launch FILE [--option N] --for ENGINE -o DIR [--gpu ID] [--calibration CAL]\n"
    "                       the files that run plan option N (default 1; 0 = the scenario\n"
    "                       as it stands) on ENGINE: vllm, sglang, trtllm (serving) or\n"
    "                       torchrun-fsdp, deepspeed, accelerate, torchtune (training)\n"
    "  record LOG... -o DIR [--scenario FILE]\n"
    "                       vLLM server logs, `vllm bench serve` JSON, HF Trainer and\n"
    "                       torchtune logs -> measured records for validate / calibrate\n"
    "  --calibration CAL: a calibration file (from calibrate) instead of the built-in one\n"
    "  --help, --version\n"
    "\n"
    "Exit codes: 0 ok, 1 failure (e.g. cannot write), 2 bad input or usage.\n"
    "User catalog overlay: $GPUPLANNER_CATALOG_OVERLAY or ~/.config/gpuplanner/catalog-overlay.json\n";

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Args {
    std::vector<std::string> positional;
    std::vector<std::string> gpus;
    std::string format;
    std::string output;
    bool explain = false;
    bool check = false;
    bool summary = false;
    bool cross = false;
    std::string calibration; // --calibration FILE
    std::vector<std::string> familyDirs; // --family-dir DIR: rows that fit only their architecture family's constants
    bool allGpus = false; // --gpu all: the whole catalog, whatever the file says
    int top = 10;
    int option = 1;           // launch --option N
    std::string engine;       // launch --for ENGINE
    std::string scenarioFile; // record --scenario FILE
    std::optional<double> confidence; // plan --confidence P
};

Args parseArgs(const std::vector<std::string>& args, std::size_t from, const std::vector<std::string>& formats)
{
    Args a;
    for (std::size_t i = from; i < args.size(); ++i) {
        const std::string& s = args[i];
        auto value = [&](const char* flag) {
            if (i + 1 >= args.size())
                throw Usage(std::string(flag) + " needs a value");
            return args[++i];
        };
        if (s == "--gpu" || s.rfind("--gpu=", 0) == 0) {
            const std::string id = s == "--gpu" ? value("--gpu") : s.substr(6);
            if (id == "all")
                a.allGpus = true;
            else
                a.gpus.push_back(id);
        } else if (s == "--format") {
            a.format = value("--format");
        } else if (s.rfind("--format=", 0) == 0) {
            a.format = s.substr(9);
        } else if (s == "-o" || s == "--output") {
            a.output = value("-o");
        } else if (s == "--top") {
            const std::string v = value("--top");
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end != 0 || n < 1 || n > 1000)
                throw Usage("--top must be an integer from 1 to 1000, got \"" + v + "\"");
            a.top = int(n);
        } else if (s == "--confidence") {
            const std::string v = value("--confidence");
            char* end = nullptr;
            const double p = std::strtod(v.c_str(), &end);
            if (v.empty() || *end != 0 || !(p >= 0 && p <= 1))
                throw Usage("--confidence must be a probability from 0 to 1, got \"" + v + "\"");
            a.confidence = p;
        } else if (s == "--explain") {
            a.explain = true;
        } else if (s == "--check") {
            a.check = true;
        } else if (s == "--summary") {
            a.summary = true;
        } else if (s == "--cross") {
            a.cross = true;
        } else if (s == "--calibration") {
            a.calibration = value("--calibration");
        } else if (s == "--option") {
            const std::string v = value("--option");
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end != 0 || n < 0 || n > 1000)
                throw Usage("--option must be an integer from 0 (the scenario as it stands) to 1000, got \"" + v + "\"");
            a.option = int(n);
        } else if (s == "--for") {
            a.engine = value("--for");
        } else if (s == "--scenario") {
            a.scenarioFile = value("--scenario");
        } else if (s == "--family-dir") {
            a.familyDirs.push_back(value("--family-dir"));
        } else if (s.size() > 1 && s[0] == '-') {
            throw Usage("unknown option " + s);
        } else {
            a.positional.push_back(s);
        }
    }
    if (!a.format.empty() && std::find(formats.begin(), formats.end(), a.format) == formats.end()) {
        std::string list;
        for (const auto& f : formats)
            list += (list.empty() ? "" : "|") + f;
        throw Usage("--format must be " + list + ", got \"" + a.format + "\"");
    }
    return a;
}

void printProblems(std::ostream& err, const InputError& e, const std::string& file)
{
    for (const auto& p : e.problems())
        err << (file.empty() || p.path == file ? "" : printable(file) + ": ") << p.text() << "\n";
}

/// The catalog (built-in + user overlay), its warnings on stderr.
Catalog catalogFor(std::ostream& err)
{
    UserCatalogLoad loaded = loadCatalogWithUserOverlay(BadOverlay::Report);
    if (!loaded.problems.empty())
        err << "warning: " << printable("user catalog overlay ignored: " + loaded.problemText()) << "\n";
    return std::move(loaded.catalog);
}

/// The scenario FILE argument: parsed, its warnings on stderr, --gpu applied.
/// Throws InputError.
Scenario scenarioArg(const Args& a, std::ostream& err)
{
    const std::string& file = a.positional.at(0);
    ParsedScenario parsed = parseScenario(readTextFileBounded(file, kMaxInputBytes));
    for (const auto& w : parsed.warnings)
        err << printable(file) << ": warning: " << w.text() << "\n";
    if (!a.gpus.empty() || a.allGpus)
        parsed.scenario.hardware.gpus = a.gpus;
    return std::move(parsed.scenario);
}

/// --calibration FILE, loaded and validated; nullopt without the option. Throws
/// InputError whose problems name the file and the key.
std::optional<Calibration> calibrationArg(const Args& a, std::ostream& err)
{
    if (a.calibration.empty())
        return std::nullopt;
    try {
        Calibration c = loadCalibration(readTextFileBounded(a.calibration, kMaxInputBytes));
        c.source = a.calibration;
        for (const auto& w : c.warnings)
            err << printable(a.calibration) << ": warning: " << printable(w) << "\n";
        return c;
    } catch (const InputError& e) {
        std::vector<Diagnostic> problems;
        for (const auto& p : e.problems())
            problems.push_back({p.path == a.calibration || p.path.empty() ? a.calibration : a.calibration + ": " + p.path,
                                p.message});
        throw InputError(std::move(problems));
    }
}

const Calibration* ptr(const std::optional<Calibration>& c) { return c ? &*c : nullptr; }

int cmdEstimate(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 1)
        throw Usage("estimate needs exactly one scenario FILE");
    const std::string& file = a.positional[0];
    const Catalog catalog = catalogFor(err);
    const std::optional<Calibration> cal = calibrationArg(a, err);
    try {
        EstimateOptions options;
        options.calibration = ptr(cal);
        const Estimate est = estimate(scenarioArg(a, err), catalog, options);
        std::string text;
        if (a.format == "table")
            text = printable(estimateToTable(est), true);
        else if (a.format == "csv")
            text = printable(estimateToCsv(est), true);
        else
            text = a.explain ? termsJson(est) : estimateToJson(est);
        out << text;
        return 0;
    } catch (const InputError& e) {
        printProblems(err, e, file);
        return 2;
    }
}

std::string joined(const std::vector<std::string>& dirs)
{
    std::string s;
    for (const auto& d : dirs)
        s += (s.empty() ? "" : " ") + d;
    return s;
}

/// Exit codes of validate and calibrate: a bad file or record is named on
/// stderr (file, record, key, why) and skipped, and the run goes on with the
/// rest (exit 0, or 1 for --check over a bound); nothing usable left is exit 2.
void printProblems(const ValidationSet& set, std::ostream& err)
{
    for (const auto& d : set.problems)
        err << d.text() << "\n";
}

int cmdValidate(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.empty())
        throw Usage("validate needs at least one DIR");
    if (a.cross && a.format == "json")
        throw Usage("validate --cross prints a table (--format table or --summary), not JSON");
    const Catalog cat = catalogFor(err);
    const std::optional<Calibration> cal = calibrationArg(a, err);
    try {
        const ValidationSet set = loadValidationSet(a.positional, cat, a.familyDirs);
        printProblems(set, err);
        const ValidationReport rep = predictSet(set, ptr(cal));
        if (rep.rows.empty()) {
            err << printable(joined(a.positional)) << ": no measured records found\n";
            return 2;
        }
        if (a.cross) {
            // The full fit from the given calibration (for the shipped data the
            // built-in one is already that fit), then one refit per record.
            CalibrateOptions options;
            options.setBands = false; // full.cross: the leave-one-out predictions, from the fit's own predictions
            const CalibrationFit full = fitCalibration(set, cal ? *cal : builtinCalibration(), options);
            const CrossValidation& cv = full.cross;
            out << printable(a.summary ? crossValidationSummary(cv) : crossValidationTable(cv), true);
            return a.check && !cv.leaveOneOut.withinBounds() ? 1 : 0;
        }
        out << (a.format == "json" ? validationToJson(rep)
                                   : printable(a.summary ? validationSummary(rep) : validationToTable(rep), true));
        if (a.format != "json" && !a.summary) // issue #16's MLPerf rows, scored as per-GPU ratios
            out << printable(mlperfRatiosTable(mlperfRatios(a.positional, cat, ptr(cal))), true);
        return a.check && !rep.withinBounds() ? 1 : 0;
    } catch (const InputError& e) {
        printProblems(err, e, "");
        return 2;
    }
}

int cmdCalibrate(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.empty() || a.output.empty())
        throw Usage("calibrate needs at least one DIR and -o FILE");
    const Catalog cat = catalogFor(err);
    const std::optional<Calibration> cal = calibrationArg(a, err);
    CalibrationFit fit;
    try {
        const ValidationSet set = loadValidationSet(a.positional, cat, a.familyDirs);
        printProblems(set, err);
        fit = fitCalibration(set, cal ? *cal : builtinCalibration());
        for (const auto& note : fit.uncertaintyNotes)
            if (note.find("leave-one-out needs") != std::string::npos)
                err << "warning: " << printable(note) << "\n";
        // A constant the records drag to its physical bound: the data cannot
        // place it (a wrong unit, or too few records of the kind it governs).
        for (const auto& f : fit.fitted)
            if (f.rows > 0 && f.atBound() && f.value != f.start) {
                char line[256];
                std::snprintf(line, sizeof line, "warning: %s moved from %.4g to its bound %.4g (%d records move it); "
                                                 "check those records' units or add records of that kind\n",
                              f.id.c_str(), f.start, f.value, f.records);
                err << line;
            }
    } catch (const InputError& e) {
        printProblems(err, e, "");
        return 2;
    }
    if (fit.rows == 0) {
        err << printable(joined(a.positional)) << ": no scored measured records to fit\n";
        return 2;
    }
    std::vector<std::string> dirs = a.positional;
    for (const auto& d : a.familyDirs)
        dirs.push_back("--family-dir " + d);
    const std::string json = calibrationFitToJson(fit, dirs);
    (void)loadCalibration(json); // what is written must read back (throws otherwise: internal error)
    if (const std::string problem = writeTextFileAtomically(a.output, json); !problem.empty()) {
        err << printable(a.output) << ": " << printable(problem) << "\n";
        return 1;
    }
    out << printable(calibrationFitTable(fit), true);
    return 0;
}

int cmdLaunch(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.size() != 1)
        throw Usage("launch needs exactly one scenario FILE");
    if (a.engine.empty()) {
        std::string list;
        for (const auto& id : engineIds())
            list += (list.empty() ? "" : ", ") + id;
        throw Usage("launch needs --for ENGINE (" + list + ")");
    }
    if (a.output.empty())
        throw Usage("launch needs -o DIR");
    const Catalog cat = catalogFor(err);
    const std::optional<Calibration> cal = calibrationArg(a, err);
    LaunchFiles files;
    try {
        (void)engineSpec(a.engine);
        const LaunchTarget t = launchTarget(scenarioArg(a, err), cat, a.option, ptr(cal));
        files = generateLaunch(t, a.engine, ptr(cal));
    } catch (const InputError& e) {
        printProblems(err, e, a.positional[0]);
        return 2;
    }
    if (const std::string problem = writeFilesIntoDir(a.output, files); !problem.empty()) {
        err << printable(problem) << "\n";
        return 1;
    }
    for (const auto& f : files.files)
        out << printable(a.output + "/" + f.name) << "\n";
    return 0;
}

int cmdRecord(const Args& a, std::ostream& out, std::ostream& err)
{
    if (a.positional.empty() || a.output.empty())
        throw Usage("record needs at least one LOG and -o DIR");
    const Catalog cat = catalogFor(err);
    RecordResult result;
    try {
        std::optional<Scenario> base;
        if (!a.scenarioFile.empty()) {
            ParsedScenario parsed = parseScenario(readTextFileBounded(a.scenarioFile, kMaxInputBytes));
            for (const auto& w : parsed.warnings)
                err << printable(a.scenarioFile) << ": warning: " << w.text() << "\n";
            base = std::move(parsed.scenario);
        }
        std::vector<LogInput> logs;
        for (const auto& p : a.positional)
            logs.push_back({p, readTextFileBounded(p, kMaxInputBytes)});
        result = recordLogs(logs, base, cat);
    } catch (const InputError& e) {
        printProblems(err, e, "");
        return 2;
    }
    LaunchFiles files;
    const std::string name = "recorded-" + std::filesystem::path(a.positional[0]).stem().string() + ".json";
    files.files.push_back({name, result.json, false});
    if (const std::string problem = writeFilesIntoDir(a.output, files); !problem.empty()) {
        err << printable(problem) << "\n";
        return 1;
    }
    for (const auto& line : result.summary)
        out << printable(line) << "\n";
    out << printable(a.output + "/" + name) << ": " << result.records << " record(s); score them with "
        << "`gpuplanner-cli validate " << printable(a.output) << "`\n";
    return 0;
}

} // namespace

namespace {

/// The command itself; what it prints goes to `out`, a buffer that run() writes
/// and checks. Table and text formats are escaped (printable()), JSON is
/// escaped by nlohmann.
int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const Hooks& hooks)
{
    if (args.empty()) {
        err << kUsage;
        return 2;
    }
    const std::string& cmd = args[0];
    try {
        if (cmd == "--help" || cmd == "-h" || cmd == "help") {
            out << kUsage;
            return 0;
        }
        if (cmd == "--version" || cmd == "-V") {
            out << "gpuplanner-cli " << version() << "\n";
            return 0;
        }
        if (cmd == "estimate")
            return cmdEstimate(parseArgs(args, 1, {"json", "table", "csv"}), out, err);
        if (cmd == "plan") {
            const Args a = parseArgs(args, 1, {"json", "table"});
            if (a.positional.size() != 1)
                throw Usage("plan needs exactly one scenario FILE");
            const Catalog cat = catalogFor(err);
            const std::optional<Calibration> cal = calibrationArg(a, err);
            try {
                PlanRequest request{a.top, ptr(cal)};
                request.confidence = a.confidence;
                const PlanResult r = plan(scenarioArg(a, err), cat, request);
                out << (a.format == "table" ? printable(planToTable(r), true) : planToJson(r));
                return 0;
            } catch (const InputError& e) {
                printProblems(err, e, a.positional[0]);
                return 2;
            }
        }
        if (cmd == "rent-vs-buy") {
            const Args a = parseArgs(args, 1, {"json", "table"});
            if (a.positional.size() != 1)
                throw Usage("rent-vs-buy needs exactly one scenario FILE");
            const Catalog cat = catalogFor(err);
            try {
                const Scenario s = scenarioArg(a, err);
                std::vector<RentVsBuy> rows;
                std::vector<Diagnostic> problems;
                const std::vector<std::string> ids = s.hardware.gpus.empty() ? std::vector<std::string>{} : s.hardware.gpus;
                if (ids.empty()) {
                    for (const auto& g : cat.gpus())
                        if (g.pricePerHour.typical > 0 || g.purchaseUsd > 0)
                            rows.push_back(rentVsBuy(s, g, s.hardware.count));
                } else {
                    for (std::size_t i = 0; i < ids.size(); ++i) {
                        const Gpu* g = cat.find(ids[i]);
                        if (!g)
                            problems.push_back({"hardware.gpus[" + std::to_string(i) + "]",
                                                cat.unknownIdMessage(ids[i])});
                        else
                            rows.push_back(rentVsBuy(s, *g, s.hardware.count));
                    }
                }
                if (!problems.empty())
                    throw InputError(std::move(problems));
                out << (a.format == "json" ? rentVsBuyToJson(rows) : printable(rentVsBuyToTable(rows), true));
                return 0;
            } catch (const InputError& e) {
                printProblems(err, e, a.positional[0]);
                return 2;
            }
        }
        if (cmd == "rules") {
            const Args a = parseArgs(args, 1, {"json", "table"});
            if (!a.positional.empty())
                throw Usage("rules takes no arguments");
            // The articles' claims are checked against the reference catalog, not user edits.
            const auto rules = checkRulesOfThumb(Catalog::builtin());
            out << (a.format == "json" ? rulesToJson(rules) : printable(rulesToText(rules), true));
            return 0;
        }
        if (cmd == "gpus") {
            const Args a = parseArgs(args, 1, {"json", "table"});
            if (!a.positional.empty())
                throw Usage("gpus takes no arguments");
            const Catalog cat = catalogFor(err);
            out << (a.format == "json" ? gpusJson(cat) : printable(gpusTable(cat), true));
            return 0;
        }
        if (cmd == "presets") {
            const Args a = parseArgs(args, 1, {"json", "table"});
            if (!a.positional.empty())
                throw Usage("presets takes no arguments");
            out << (a.format == "json" ? presetsJson() : printable(presetsTable(), true));
            return 0;
        }
        if (cmd == "validate")
            return cmdValidate(parseArgs(args, 1, {"json", "table"}), out, err);
        if (cmd == "calibrate")
            return cmdCalibrate(parseArgs(args, 1, {}), out, err);
        if (cmd == "launch")
            return cmdLaunch(parseArgs(args, 1, {}), out, err);
        if (cmd == "record")
            return cmdRecord(parseArgs(args, 1, {}), out, err);
        if (cmd == "report") {
            const Args a = parseArgs(args, 1, {});
            if (a.positional.size() != 1 || a.output.empty())
                throw Usage("report needs a scenario FILE and -o OUT.pdf");
            if (!hooks.report) {
                err << "report: this build has no PDF support (built without the Qt UI)\n";
                return 1;
            }
            const Catalog cat = catalogFor(err);
            const std::optional<Calibration> cal = calibrationArg(a, err);
            try {
                const std::string problem = hooks.report(scenarioArg(a, err), cat, a.output, ptr(cal));
                if (!problem.empty()) {
                    err << printable(a.output) << ": " << printable(problem) << "\n";
                    return 1;
                }
                return 0;
            } catch (const InputError& e) {
                printProblems(err, e, a.positional[0]);
                return 2;
            }
        }
        throw Usage("unknown command \"" + cmd + "\" (try --help)");
    } catch (const Usage& u) {
        err << "gpuplanner-cli: " << printable(u.what()) << "\n";
        return 2;
    } catch (const InputError& e) {
        printProblems(err, e, "");
        return 2;
    } catch (const std::exception& e) {
        err << "gpuplanner-cli: internal error: " << printable(e.what()) << "\n";
        return 1;
    }
}

} // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err, const Hooks& hooks)
{
    std::ostringstream buffer;
    const int code = runCommand(args, buffer, err, hooks);
    // Tables and messages went through printable(); JSON keeps text as given,
    // so a bidi control in a name would still reorder the terminal: escaped here
    // as JSON spells it (the same string to a JSON reader).
    const std::string text = escapeFormatCharactersInJson(buffer.str());
    errno = 0;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
        const int e = errno;
        err << "gpuplanner-cli: cannot write the output (" << text.size() << " bytes)"
            << (e != 0 ? std::string(": ") + std::strerror(e) : std::string()) << "\n";
        err.flush();
        return 1;
    }
    return code;
}

} // namespace gp::cli
