#include "core/scenario/scenario.h"
#include "core/scenario/scenarioname.h"

#include "core/model/hfconfig.h"
#include "core/base/jsonparse.h"
#include "core/base/jsonread.h"
#include "core/hardware/mig.h"
#include "core/model/presets.h"
#include "core/model/sizeonly.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <span>

namespace gp {

using nlohmann::json;
using detail::JsonReader;

namespace {

constexpr int kFormatVersion = 1;
constexpr std::size_t kMaxScenarioBytes = 16u << 20;  // 16 MiB: far above any real scenario
constexpr int kMaxNesting = 64;                       // real scenarios nest 4 deep; hf configs ~6

constexpr std::array kModes{std::string_view("training"), std::string_view("inference")};
constexpr std::array kRuntimes{std::string_view("eager"), std::string_view("optimized"), std::string_view("serving")};
constexpr std::array kMethods{std::string_view("full"), std::string_view("lora"), std::string_view("qlora")};
constexpr std::array kTrainPrecisions{std::string_view("fp32"), std::string_view("tf32"), std::string_view("amp_bf16"),
                                      std::string_view("amp_fp16"), std::string_view("bf16"), std::string_view("fp8")};
constexpr std::array kOptimizers{std::string_view("adamw"), std::string_view("sgd"), std::string_view("sgd_momentum"),
                                 std::string_view("adamw_8bit")};
constexpr std::array kCheckpointing{std::string_view("none"), std::string_view("selective"), std::string_view("full")};
constexpr std::array kInferPrecisions{std::string_view("fp32"), std::string_view("fp16"), std::string_view("bf16"),
                                      std::string_view("fp8"),  std::string_view("int8"), std::string_view("int4"),
                                      std::string_view("fp4")};
// FP4 is a weight format (NVFP4): the KV cache takes the others.
constexpr std::size_t kKvPrecisionCount = 6;
constexpr std::array kPricingModels{std::string_view("on_demand"), std::string_view("spot"),
                                    std::string_view("reserved"), std::string_view("purchase")};
constexpr std::array kLoraTargets{std::string_view("q_proj"),    std::string_view("k_proj"),
                                  std::string_view("v_proj"),    std::string_view("o_proj"),
                                  std::string_view("gate_proj"), std::string_view("up_proj"),
                                  std::string_view("down_proj")};

void parseModel(JsonReader& r, const json& m, ModelSpec& spec)
{
    const std::string path = "model";
    const bool hasPreset = m.contains("preset");
    const bool hasHf = m.contains("hf_config");
    const bool hasParams = m.contains("params");
    const bool hasExplicit = m.contains("layers") || m.contains("hidden");
    const int forms = int(hasPreset) + int(hasHf) + int(hasParams) + int(hasExplicit);
    if (forms == 0) {
        r.error(path, "give one of \"preset\", \"hf_config\", \"params\" or an explicit architecture "
                      "(\"layers\", \"hidden\", ...)");
        return;
    }
    if (forms > 1) {
        r.error(path, "give exactly one of \"preset\", \"hf_config\", \"params\" or an explicit architecture");
        return;
    }
    if (hasPreset) {
        r.checkKeys(m, path, {"preset"});
        spec.form = ModelSpec::Form::Preset;
        if (auto id = r.string(m, path, "preset"))
            spec.presetId = *id;
    } else if (hasHf) {
        r.checkKeys(m, path, {"hf_config"});
        spec.form = ModelSpec::Form::HfConfig;
        if (r.object(m, path, "hf_config", true))
            spec.jsonText = m.at("hf_config").dump();
    } else if (hasParams) {
        r.checkKeys(m, path, {"params", "family", "moe"});
        spec.form = ModelSpec::Form::Params;
        if (auto p = r.number(m, path, "params", 1e5, 1e14))
            spec.params = *p;
        if (auto f = r.choice(m, path, "family", {"decoder", "encoder", "vision"}))
            spec.family = static_cast<ModelFamily>(*f);
        if (const json* moe = r.object(m, path, "moe", false)) {
            const std::string mp = path + ".moe";
            r.checkKeys(*moe, mp, {"experts", "active", "shared", "expert_ffn_hidden"});
            spec.moe.experts = r.integer(*moe, mp, "experts", 1, 4096).value_or(0);
            spec.moe.active = r.integer(*moe, mp, "active", 1, 4096).value_or(std::min(2, spec.moe.experts));
            spec.moe.shared = r.integer(*moe, mp, "shared", 0, 4096).value_or(0);
            spec.moe.expertFfnHidden = r.integer(*moe, mp, "expert_ffn_hidden", 1, 10'000'000).value_or(0);
            if (spec.moe.active > spec.moe.experts && spec.moe.experts > 0)
                r.error(mp + ".active", "must not exceed moe.experts");
        }
    } else {
        r.checkKeys(m, path,
                    {"family", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "ffn", "vocab",
                     "tied_embeddings", "positional", "max_positions", "moe", "name", "sliding_window",
                     "sliding_layers", "linear_layers", "linear_state_bytes"});
        spec.form = ModelSpec::Form::Explicit;
        spec.jsonText = m.dump();
    }
}

void parseTraining(JsonReader& r, const json& t, TrainingWorkload& w)
{
    const std::string p = "workload.training";
    r.checkKeys(t, p,
                {"method", "lora_rank", "lora_targets", "precision", "optimizer", "micro_batch", "seq_len",
                 "image_size", "grad_accum", "activation_checkpointing", "dataset_tokens", "dataset_samples", "epochs",
                 "targets", "global_batch_tokens", "chunked_loss", "optimizer_in_backward"});
    if (auto v = r.choice(t, p, "method", kMethods))
        w.method = static_cast<TrainMethod>(*v);
    if (auto v = r.integer(t, p, "lora_rank", 1, 65536))
        w.loraRank = *v;
    if (auto it = t.find("lora_targets"); it != t.end()) {
        const std::string tp = p + ".lora_targets";
        if (!it->is_array() || it->empty()) {
            r.error(tp, "must be a non-empty array of module names, got " + detail::describe(*it));
        } else {
            w.loraTargets.clear();
            for (std::size_t i = 0; i < it->size(); ++i) {
                const json& e = (*it)[i];
                const std::string ep = tp + "[" + std::to_string(i) + "]";
                bool ok = false;
                if (e.is_string())
                    for (auto k : kLoraTargets)
                        ok = ok || k == e.get_ref<const std::string&>();
                if (!ok) {
                    r.error(ep, "must be one of q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, got " +
                                    detail::describe(e));
                } else if (std::find(w.loraTargets.begin(), w.loraTargets.end(), e.get<std::string>()) ==
                           w.loraTargets.end()) {
                    w.loraTargets.push_back(e.get<std::string>());
                }
            }
        }
    }
    if (auto v = r.choice(t, p, "precision", kTrainPrecisions))
        w.precision = static_cast<TrainPrecision>(*v);
    if (auto v = r.choice(t, p, "optimizer", kOptimizers))
        w.optimizer = static_cast<Optimizer>(*v);
    if (auto v = r.integer(t, p, "micro_batch", 1, 1'000'000))
        w.microBatch = *v;
    if (auto v = r.integer(t, p, "seq_len", 1, 10'000'000))
        w.seqLen = *v;
    if (auto v = r.integer(t, p, "image_size", 16, 8192))
        w.imageSize = *v;
    if (auto v = r.integer(t, p, "grad_accum", 1, 1'000'000))
        w.gradAccum = *v;
    if (auto v = r.choice(t, p, "activation_checkpointing", kCheckpointing))
        w.checkpointing = static_cast<Checkpointing>(*v);
    w.datasetTokens = r.number(t, p, "dataset_tokens", 0, 1e17, true);
    w.datasetSamples = r.number(t, p, "dataset_samples", 0, 1e15, true);
    if (w.datasetTokens && w.datasetSamples)
        r.error(p + ".dataset_samples", "give dataset_tokens or dataset_samples, not both");
    if (auto v = r.number(t, p, "epochs", 0, 1e5, true))
        w.epochs = *v;
    w.globalBatchTokens = r.number(t, p, "global_batch_tokens", 1, 1e12);
    if (auto v = r.boolean(t, p, "chunked_loss"))
        w.chunkedLoss = *v;
    if (auto v = r.boolean(t, p, "optimizer_in_backward"))
        w.optimizerInBackward = *v;
    if (const json* tg = r.object(t, p, "targets", false)) {
        const std::string gp = p + ".targets";
        r.checkKeys(*tg, gp, {"deadline_hours", "budget_usd"});
        w.targets.deadlineHours = r.number(*tg, gp, "deadline_hours", 0, 1e7, true);
        w.targets.budgetUsd = r.number(*tg, gp, "budget_usd", 0, 1e13, true);
    }
}

void parseInference(JsonReader& r, const json& t, InferenceWorkload& w)
{
    const std::string p = "workload.inference";
    r.checkKeys(t, p,
                {"precision", "kv_precision", "batch", "prompt_tokens", "output_tokens", "image_size", "targets",
                 "memory_fraction"});
    if (t.contains("precision") && t.at("precision") == "checkpoint")
        w.checkpointWeights = true; // the checkpoint's own storage; 16-bit compute unless the format runs natively
    else if (auto v = r.choice(t, p, "precision", kInferPrecisions))
        w.precision = static_cast<InferPrecision>(*v);
    if (auto v = r.choice(t, p, "kv_precision", std::span(kInferPrecisions).first(kKvPrecisionCount)))
        w.kvPrecision = static_cast<InferPrecision>(*v);
    if (auto v = r.integer(t, p, "batch", 1, 1'000'000))
        w.batch = *v;
    if (auto v = r.integer(t, p, "prompt_tokens", 1, 10'000'000))
        w.promptTokens = *v;
    if (auto v = r.integer(t, p, "output_tokens", 1, 10'000'000))
        w.outputTokens = *v;
    if (auto v = r.integer(t, p, "image_size", 16, 8192))
        w.imageSize = *v;
    if (auto v = r.number(t, p, "memory_fraction", 0, 1, true))
        w.memoryFraction = *v;
    if (const json* tg = r.object(t, p, "targets", false)) {
        const std::string gp = p + ".targets";
        r.checkKeys(*tg, gp, {"ttft_ms", "tpot_ms", "requests_per_s", "ttft_p99_ms"});
        w.targets.ttftP99Ms = r.number(*tg, gp, "ttft_p99_ms", 0, 1e9, true);
        w.targets.ttftMs = r.number(*tg, gp, "ttft_ms", 0, 1e9, true);
        w.targets.tpotMs = r.number(*tg, gp, "tpot_ms", 0, 1e9, true);
        w.targets.requestsPerS = r.number(*tg, gp, "requests_per_s", 0, 1e9, true);
    }
}

/// Why hardware.shard_group (HSDP: shard inside groups of N GPUs, replicate
/// across groups) does not fit the layout; empty when it does or is unset.
std::string shardGroupProblem(const Hardware& hw)
{
    if (hw.shardGroup == 0)
        return {};
    if (hw.shardGroup < 0)
        return "must be a positive integer, got " + std::to_string(hw.shardGroup);
    if (hw.zero == 0)
        return "shards ZeRO states: it needs zero 1, 2 or 3 (zero is 0)";
    const int dp = hw.count / std::max(1, hw.tp * hw.pp);
    if (dp % hw.shardGroup != 0)
        return "must divide the data-parallel GPUs (count / (tp x pp) = " + std::to_string(dp) + "), got " +
               std::to_string(hw.shardGroup);
    return {};
}

void parseHardware(JsonReader& r, const json& h, Hardware& hw)
{
    const std::string p = "hardware";
    r.checkKeys(h, p, {"gpus", "count", "tp", "pp", "zero", "shard_group", "max_count", "network_gbps", "mig",
                       "precisions", "consumer", "confidence"});
    if (auto it = h.find("precisions"); it != h.end()) {
        // Training or inference format names; validateScenario checks them against the mode.
        if (!it->is_array() || it->empty()) {
            r.error(p + ".precisions", "must be a non-empty array of precisions, got " + detail::describe(*it));
        } else {
            for (std::size_t i = 0; i < it->size(); ++i) {
                const json& e = (*it)[i];
                const bool known = e.is_string() && (std::find(kTrainPrecisions.begin(), kTrainPrecisions.end(),
                                                               e.get_ref<const std::string&>()) != kTrainPrecisions.end() ||
                                                     std::find(kInferPrecisions.begin(), kInferPrecisions.end(),
                                                               e.get_ref<const std::string&>()) != kInferPrecisions.end());
                if (!known)
                    r.error(p + ".precisions[" + std::to_string(i) + "]",
                            "must be a training precision (fp32, tf32, amp_bf16, amp_fp16, bf16, fp8) or an inference "
                            "one (fp32, fp16, bf16, fp8, int8, int4, fp4), got " + detail::describe(e));
                else if (std::find(hw.precisions.begin(), hw.precisions.end(), e.get<std::string>()) == hw.precisions.end())
                    hw.precisions.push_back(e.get<std::string>());
            }
        }
    }
    if (auto v = r.boolean(h, p, "consumer"))
        hw.consumer = *v;
    if (auto v = r.number(h, p, "confidence", 0, 1))
        hw.confidence = *v;
    if (auto it = h.find("gpus"); it != h.end()) {
        if (it->is_string() && it->get_ref<const std::string&>() == "all") {
            hw.gpus.clear();
        } else if (it->is_array() && !it->empty()) {
            hw.gpus.clear();
            for (std::size_t i = 0; i < it->size(); ++i) {
                const json& e = (*it)[i];
                if (!e.is_string() || e.get_ref<const std::string&>().empty())
                    r.error(p + ".gpus[" + std::to_string(i) + "]", "must be a catalog id, got " + detail::describe(e));
                else if (e.get_ref<const std::string&>() != "all")
                    hw.gpus.push_back(e.get<std::string>());
            }
        } else {
            r.error(p + ".gpus", "must be \"all\" or a non-empty array of catalog ids, got " + detail::describe(*it));
        }
    }
    if (auto v = r.integer(h, p, "count", 1, 1'000'000))
        hw.count = *v;
    if (auto v = r.integer(h, p, "tp", 1, 1024))
        hw.tp = *v;
    if (auto v = r.integer(h, p, "pp", 1, 1024))
        hw.pp = *v;
    if (auto v = r.integer(h, p, "zero", 0, 3))
        hw.zero = *v;
    if (auto v = r.integer(h, p, "shard_group", 1, 1'000'000))
        hw.shardGroup = *v;
    if (auto v = r.integer(h, p, "max_count", 1, 1'000'000))
        hw.maxCount = *v;
    if (auto v = r.number(h, p, "network_gbps", 0, 1e6, true))
        hw.networkGbps = *v;
    if (auto v = r.choice(h, p, "mig", migProfileNames()))
        hw.mig = std::string(migProfileNames()[*v]);
    if (hw.tp * hw.pp > hw.count)
        r.error(p + ".count", "must be at least tp x pp = " + std::to_string(hw.tp * hw.pp) + ", got " +
                                  std::to_string(hw.count));
    else if (hw.count % (hw.tp * hw.pp) != 0)
        r.error(p + ".count", "must be a multiple of tp x pp = " + std::to_string(hw.tp * hw.pp) + ", got " +
                                  std::to_string(hw.count));
    else if (const std::string problem = shardGroupProblem(hw); !problem.empty())
        r.error(p + ".shard_group", problem);
}

void parsePricing(JsonReader& r, const json& pr, Pricing& p)
{
    const std::string path = "pricing";
    r.checkKeys(pr, path,
                {"model", "utilization", "electricity_usd_per_kwh", "pue", "amortization_years", "hosting_usd_per_gpu_year"});
    if (auto v = r.choice(pr, path, "model", kPricingModels))
        p.model = static_cast<PricingModel>(*v);
    if (auto v = r.number(pr, path, "utilization", 0, 1, true))
        p.utilization = *v;
    if (auto v = r.number(pr, path, "electricity_usd_per_kwh", 0, 10))
        p.electricityUsdPerKwh = *v;
    if (auto v = r.number(pr, path, "pue", 1, 5))
        p.pue = *v;
    // At least about five weeks: over 1e-308 years a purchase would cost $0/h
    // or infinity, and every figure derived from it is noise.
    if (auto v = r.number(pr, path, "amortization_years", 0.1, 50))
        p.amortizationYears = *v;
    if (auto v = r.number(pr, path, "hosting_usd_per_gpu_year", 0, 1e7))
        p.hostingUsdPerGpuYear = *v;
}

} // namespace

ModelArch resolveModel(const ModelSpec& spec)
{
    switch (spec.form) {
    case ModelSpec::Form::Preset: {
        const ModelArch* m = findPreset(spec.presetId);
        if (!m) {
            std::string ids;
            for (const auto& p : modelPresets())
                ids += (ids.empty() ? "" : ", ") + p.id;
            throw InputError("model.preset", "unknown preset \"" + spec.presetId + "\"; known: " + ids);
        }
        return *m;
    }
    case ModelSpec::Form::Explicit:
        return modelFromExplicit(parseJson(spec.jsonText, "model"), "model");
    case ModelSpec::Form::HfConfig:
        return modelFromHfConfig(parseJson(spec.jsonText, "model.hf_config"), "model.hf_config");
    case ModelSpec::Form::Params:
        return modelFromParams(spec.params, spec.family.value_or(ModelFamily::Decoder), spec.moe);
    }
    throw InputError("model", "unknown model form");
}

ModelSpec hfConfigSpecFromText(std::string_view text, const std::string& origin)
{
    if (text.size() > kMaxScenarioBytes)
        throw InputError(origin, "larger than 16 MiB; refused");
    if (detail::findTooDeep(text, kMaxNesting) != std::string_view::npos)
        throw InputError(origin, "nested more than " + std::to_string(kMaxNesting) + " levels deep; refused");
    json doc;
    try {
        // Python's json writes Infinity/NaN (Nemotron-H's time_step_limit): read as null.
        doc = json::parse(withoutPythonNumbers(text));
    } catch (const json::exception& e) {
        throw InputError(origin, "not valid JSON: " + detail::stripExceptionTag(e.what()));
    }
    if (!doc.is_object())
        throw InputError(origin, "a config.json is a JSON object, got " + detail::describe(doc));
    ModelSpec spec;
    spec.form = ModelSpec::Form::HfConfig;
    spec.jsonText = doc.dump(2);
    (void)resolveModel(spec); // refuse what the core cannot read, with its key paths
    return spec;
}

ParsedScenario parseScenario(std::string_view text, bool keepProblems)
{
    if (text.size() > kMaxScenarioBytes)
        throw InputError("scenario", "file is " + std::to_string(text.size() >> 20) +
                                         " MiB; scenarios larger than 16 MiB are refused");
    if (detail::findTooDeep(text, kMaxNesting) != std::string_view::npos)
        throw InputError("scenario", "nested more than " + std::to_string(kMaxNesting) + " levels deep; refused");
    if (const auto nul = text.find('\0'); nul != std::string_view::npos)
        throw InputError("scenario", "contains a NUL byte at offset " + std::to_string(nul) + "; not a text file");
    JsonReader r;
    json doc;
    try {
        doc = detail::parseCheckingDuplicates(text, r);
    } catch (const json::exception& e) {
        // parse_error (syntax) or out_of_range (a number like 1e999 overflows a double)
        throw InputError("scenario", "not valid JSON: " + detail::stripExceptionTag(e.what()));
    }
    if (!doc.is_object())
        throw InputError("scenario", "must be a JSON object, got " + detail::describe(doc));

    ParsedScenario out;
    Scenario& s = out.scenario;
    r.checkKeys(doc, "", {"format", "version", "name", "model", "workload", "hardware", "pricing", "$schema", "notes"});

    if (auto it = doc.find("format"); it == doc.end())
        r.error("format", "missing (required): \"gpuplanner-scenario\"");
    else if (!it->is_string() || *it != "gpuplanner-scenario")
        r.error("format", "must be \"gpuplanner-scenario\", got " + detail::describe(*it));
    if (auto it = doc.find("version"); it == doc.end()) {
        r.error("version", "missing (required): 1");
    } else if (const bool newer = (it->is_number_unsigned() && it->get<unsigned long long>() > static_cast<unsigned long long>(kFormatVersion)) ||
                                  (it->is_number_integer() && !it->is_number_unsigned() &&
                                   it->get<long long>() > kFormatVersion) ||
                                  (it->is_number_float() && std::isfinite(it->get<double>()) &&
                                   std::floor(it->get<double>()) == it->get<double>() &&
                                   it->get<double>() > kFormatVersion);
               newer) {
        // Any whole number above 1 (2^63 and 2.0 too) is a later format, not a typo.
        r.error("version", "version " + detail::describe(*it) + " is newer than this program (which reads version " +
                               std::to_string(kFormatVersion) + "); update GPU Planner");
    } else if (!it->is_number_integer() && !it->is_number_unsigned()) {
        r.error("version", "must be the integer 1, got " + detail::describe(*it));
    } else if (it->get<long long>() < 1) {
        r.error("version", "must be 1, got " + detail::describe(*it));
    }
    if (auto n = r.string(doc, "", "name")) {
        // A name is a title: a megabyte of it is a damaged or hostile file, and
        // every place that shows it (a prompt, a title bar, a report) would choke.
        constexpr std::size_t kMaxNameChars = 1024;
        const auto chars = static_cast<std::size_t>(
            std::count_if(n->begin(), n->end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
        if (chars > kMaxNameChars)
            r.error("name", "at most " + std::to_string(kMaxNameChars) + " characters, got " + std::to_string(chars));
        else
            s.name = *n;
    }

    if (const json* m = r.object(doc, "", "model", true))
        parseModel(r, *m, s.modelSpec);

    if (const json* w = r.object(doc, "", "workload", true)) {
        r.checkKeys(*w, "workload", {"mode", "runtime", "training", "inference"});
        if (auto v = r.choice(*w, "workload", "mode", kModes))
            s.mode = static_cast<Mode>(*v);
        else if (!w->contains("mode"))
            r.error("workload.mode", "missing (required): \"training\" or \"inference\"");
        if (auto v = r.choice(*w, "workload", "runtime", kRuntimes))
            s.runtime = static_cast<Runtime>(*v);
        if (const json* t = r.object(*w, "workload", "training", false))
            parseTraining(r, *t, s.training);
        if (const json* t = r.object(*w, "workload", "inference", false))
            parseInference(r, *t, s.inference);
        if (s.mode == Mode::Training && !w->contains("training"))
            r.warn("workload.training", "missing; using the defaults");
        if (s.mode == Mode::Inference && !w->contains("inference"))
            r.warn("workload.inference", "missing; using the defaults");
    }
    if (const json* h = r.object(doc, "", "hardware", false))
        parseHardware(r, *h, s.hardware);
    if (const json* p = r.object(doc, "", "pricing", false))
        parsePricing(r, *p, s.pricing);

    if (r.errors.empty()) {
        try {
            s.model = resolveModel(s.modelSpec);
            for (const auto& note : s.model.readNotes) // what the config reader assumed or left unread
                r.warn(s.modelSpec.form == ModelSpec::Form::HfConfig ? "model.hf_config" : "model", note);
        } catch (const InputError& e) {
            for (const auto& d : e.problems())
                r.errors.push_back(d);
        }
    }
    if (r.errors.empty()) {
        for (auto& d : validateScenario(s))
            (keepProblems ? out.problems : r.errors).push_back(std::move(d));
    }
    if (!r.errors.empty())
        throw InputError(std::move(r.errors));
    out.warnings = std::move(r.warnings);
    if (s.mode == Mode::Training && s.model.family == ModelFamily::Vision && doc["workload"].contains("training") &&
        doc["workload"]["training"].contains("seq_len"))
        out.warnings.push_back({"workload.training.seq_len", "ignored for a vision model (image_size applies)"});
    return out;
}

std::string tpProblem(const ModelArch& m, int tp)
{
    if (tp <= 1 || !m.isLanguageModel() || m.heads <= 0)
        return {};
    if (m.heads % tp != 0)
        return "must divide the " + std::to_string(m.heads) + " attention heads of " + m.name + ", got " +
               std::to_string(tp);
    const int kv = m.kvHeads > 0 ? m.kvHeads : m.heads;
    // vLLM / TensorRT-LLM: below the KV heads tp divides them; above, each KV
    // head is replicated on tp / kv_heads GPUs, which needs tp a multiple of them.
    if (tp <= kv ? kv % tp != 0 : tp % kv != 0)
        return "must divide the " + std::to_string(kv) + " KV heads of " + m.name +
               " (or be a multiple of them, each KV head then replicated), got " + std::to_string(tp);
    return {};
}

std::string ppProblem(const ModelArch& m, int pp)
{
    if (pp <= 1 || !m.isLanguageModel() || m.layers <= 0)
        return {};
    if (pp > m.layers)
        return "must be at most the " + std::to_string(m.layers) + " layers of " + m.name + " (one stage holds at "
               "least one layer), got " + std::to_string(pp);
    return {};
}

std::vector<Diagnostic> validateScenario(const Scenario& s)
{
    std::vector<Diagnostic> d;
    const auto& t = s.training;
    const auto& inf = s.inference;
    const bool lm = s.model.isLanguageModel();
    if (s.mode == Mode::Training) {
        if (t.microBatch < 1)
            d.push_back({"workload.training.micro_batch", "must be a positive integer, got " + std::to_string(t.microBatch)});
        if (t.seqLen < 1)
            d.push_back({"workload.training.seq_len", "must be a positive integer, got " + std::to_string(t.seqLen)});
        if (t.gradAccum < 1)
            d.push_back({"workload.training.grad_accum", "must be a positive integer, got " + std::to_string(t.gradAccum)});
        if (t.method != TrainMethod::Full && !lm)
            d.push_back({"workload.training.method", "LoRA/QLoRA apply to transformer language models, not to " +
                                                         s.model.name});
        if (t.method != TrainMethod::Full && t.loraTargets.empty())
            d.push_back({"workload.training.lora_targets", "must name at least one module"});
        if (lm && s.model.maxPositions > 0 && s.model.positional == Positional::Learned &&
            t.seqLen > s.model.maxPositions)
            d.push_back({"workload.training.seq_len", "is " + std::to_string(t.seqLen) + " but " + s.model.name +
                                                          " has learned positions for at most " +
                                                          std::to_string(s.model.maxPositions) + " tokens"});
    } else {
        if (inf.batch < 1)
            d.push_back({"workload.inference.batch", "must be a positive integer, got " + std::to_string(inf.batch)});
        if (inf.kvPrecision == InferPrecision::FP4)
            d.push_back({"workload.inference.kv_precision", "fp4 is a weight format (NVFP4); give the KV cache fp8, "
                                                            "fp16, bf16, int8 or int4"});
        if (lm && s.model.family == ModelFamily::Decoder && s.model.positional == Positional::Learned &&
            s.model.maxPositions > 0 &&
            static_cast<long long>(inf.promptTokens) + inf.outputTokens > s.model.maxPositions)
            d.push_back({"workload.inference.prompt_tokens",
                         "prompt + output = " + std::to_string(static_cast<long long>(inf.promptTokens) + inf.outputTokens) +
                             " tokens exceeds the " + std::to_string(s.model.maxPositions) +
                             " learned positions of " + s.model.name});
    }
    const auto& h = s.hardware;
    if (h.count < 1)
        d.push_back({"hardware.count", "must be a positive integer"});
    else if (h.tp * h.pp > h.count)
        d.push_back({"hardware.count", "must be at least tp x pp = " + std::to_string(h.tp * h.pp) + ", got " +
                                           std::to_string(h.count)});
    else if (h.count % (h.tp * h.pp) != 0)
        d.push_back({"hardware.count", "must be a multiple of tp x pp = " + std::to_string(h.tp * h.pp) + ", got " +
                                           std::to_string(h.count)});
    else if (const std::string problem = shardGroupProblem(h); !problem.empty())
        d.push_back({"hardware.shard_group", problem});
    if (s.mode == Mode::Training && s.runtime == Runtime::Serving)
        d.push_back({"workload.runtime", "\"serving\" (a serving engine: vLLM, TensorRT-LLM, SGLang) is for mode "
                                         "\"inference\"; training runs \"eager\" or \"optimized\""});
    if (s.mode == Mode::Training && t.datasetTokens && t.datasetSamples)
        d.push_back({"workload.training.dataset_samples", "give dataset_tokens or dataset_samples, not both"});
    if (!h.mig.empty()) {
        // One slice of one GPU: MIG instances have no GPU-to-GPU path (no NVLink,
        // no P2P), so tensor/pipeline/data parallelism over slices is not modelled.
        const auto names = migProfileNames();
        if (std::find(names.begin(), names.end(), h.mig) == names.end())
            d.push_back({"hardware.mig", "must be one of \"1g\", \"2g\", \"3g\", \"4g\", \"7g\", got \"" + h.mig + "\""});
        else if (h.count != 1)
            d.push_back({"hardware.mig", "runs on one slice of one GPU: hardware.count must be 1, got " +
                                             std::to_string(h.count)});
        else if (h.gpus.empty())
            d.push_back({"hardware.mig", "needs hardware.gpus to name GPUs with MIG (e.g. nvidia-h100-sxm): \"all\" "
                                         "includes GPUs without it"});
    }
    if (s.pricing.utilization <= 0 || s.pricing.utilization > 1)
        d.push_back({"pricing.utilization", "must be in (0, 1]"});
    if (lm) {
        if (const std::string problem = tpProblem(s.model, h.tp); !problem.empty())
            d.push_back({"hardware.tp", problem});
        if (const std::string problem = ppProblem(s.model, h.pp); !problem.empty())
            d.push_back({"hardware.pp", problem});
    }
    for (std::size_t i = 0; i < h.precisions.size(); ++i) {
        const auto& names = s.mode == Mode::Training ? std::span<const std::string_view>(kTrainPrecisions)
                                                     : std::span<const std::string_view>(kInferPrecisions);
        if (std::find(names.begin(), names.end(), h.precisions[i]) == names.end())
            d.push_back({"hardware.precisions[" + std::to_string(i) + "]",
                         "\"" + h.precisions[i] + "\" is not " +
                             (s.mode == Mode::Training ? "a training precision (fp32, tf32, amp_bf16, amp_fp16, bf16, fp8)"
                                                       : "an inference precision (fp32, fp16, bf16, fp8, int8, int4, fp4)")});
    }
    if (!(h.confidence >= 0 && h.confidence <= 1))
        d.push_back({"hardware.confidence", "must be a probability in [0, 1]"});
    if (!(inf.memoryFraction > 0 && inf.memoryFraction <= 1))
        d.push_back({"workload.inference.memory_fraction", "must be in (0, 1]"});
    if (t.globalBatchTokens && !(*t.globalBatchTokens >= 1))
        d.push_back({"workload.training.global_batch_tokens", "must be a positive number of tokens"});
    return d;
}

std::string scenarioToJson(const Scenario& s)
{
    json doc = json::object();
    doc["format"] = "gpuplanner-scenario";
    doc["version"] = kFormatVersion;
    doc["name"] = s.name;
    json m = json::object();
    switch (s.modelSpec.form) {
    case ModelSpec::Form::Preset:
        m["preset"] = s.modelSpec.presetId;
        break;
    case ModelSpec::Form::Explicit:
        m = json::parse(s.modelSpec.jsonText);
        break;
    case ModelSpec::Form::HfConfig:
        m["hf_config"] = json::parse(s.modelSpec.jsonText);
        break;
    case ModelSpec::Form::Params:
        m["params"] = s.modelSpec.params;
        if (s.modelSpec.family)
            m["family"] = std::array{"decoder", "encoder", "vision"}[static_cast<int>(*s.modelSpec.family)];
        if (s.modelSpec.moe.enabled())
        {
            m["moe"] = {{"experts", s.modelSpec.moe.experts},
                        {"active", s.modelSpec.moe.active},
                        {"shared", s.modelSpec.moe.shared}};
            if (s.modelSpec.moe.expertFfnHidden > 0)
                m["moe"]["expert_ffn_hidden"] = s.modelSpec.moe.expertFfnHidden;
        }
        break;
    }
    doc["model"] = m;
    const auto& t = s.training;
    json tr = {{"method", toString(t.method)},
               {"lora_rank", t.loraRank},
               {"lora_targets", t.loraTargets},
               {"precision", toString(t.precision)},
               {"optimizer", toString(t.optimizer)},
               {"micro_batch", t.microBatch},
               {"seq_len", t.seqLen},
               {"image_size", t.imageSize},
               {"grad_accum", t.gradAccum},
               {"activation_checkpointing", toString(t.checkpointing)},
               {"epochs", t.epochs}};
    if (t.datasetTokens)
        tr["dataset_tokens"] = *t.datasetTokens;
    if (t.globalBatchTokens)
        tr["global_batch_tokens"] = *t.globalBatchTokens;
    if (t.chunkedLoss)
        tr["chunked_loss"] = true;
    if (t.optimizerInBackward)
        tr["optimizer_in_backward"] = true;
    if (t.datasetSamples)
        tr["dataset_samples"] = *t.datasetSamples;
    if (t.targets.deadlineHours || t.targets.budgetUsd) {
        json tg = json::object();
        if (t.targets.deadlineHours)
            tg["deadline_hours"] = *t.targets.deadlineHours;
        if (t.targets.budgetUsd)
            tg["budget_usd"] = *t.targets.budgetUsd;
        tr["targets"] = tg;
    }
    const auto& i = s.inference;
    json in = {{"precision", i.checkpointWeights ? std::string_view("checkpoint") : toString(i.precision)},
               {"batch", i.batch},
               {"prompt_tokens", i.promptTokens},
               {"output_tokens", i.outputTokens},
               {"image_size", i.imageSize}};
    if (i.kvPrecision)
        in["kv_precision"] = toString(*i.kvPrecision);
    if (i.memoryFraction != 0.9)
        in["memory_fraction"] = i.memoryFraction;
    if (i.targets.ttftMs || i.targets.tpotMs || i.targets.requestsPerS || i.targets.ttftP99Ms) {
        json tg = json::object();
        if (i.targets.ttftMs)
            tg["ttft_ms"] = *i.targets.ttftMs;
        if (i.targets.tpotMs)
            tg["tpot_ms"] = *i.targets.tpotMs;
        if (i.targets.requestsPerS)
            tg["requests_per_s"] = *i.targets.requestsPerS;
        if (i.targets.ttftP99Ms)
            tg["ttft_p99_ms"] = *i.targets.ttftP99Ms;
        in["targets"] = tg;
    }
    doc["workload"] = {{"mode", toString(s.mode)}, {"runtime", toString(s.runtime)}, {"training", tr}, {"inference", in}};
    const auto& h = s.hardware;
    json hw = {{"count", h.count}, {"tp", h.tp}, {"pp", h.pp}, {"zero", h.zero}, {"max_count", h.maxCount},
               {"network_gbps", h.networkGbps}};
    if (h.shardGroup > 0)
        hw["shard_group"] = h.shardGroup;
    if (h.gpus.empty())
        hw["gpus"] = "all";
    else
        hw["gpus"] = h.gpus;
    if (!h.mig.empty())
        hw["mig"] = h.mig;
    if (!h.precisions.empty())
        hw["precisions"] = h.precisions;
    if (h.consumer)
        hw["consumer"] = true;
    if (h.confidence != 0.9)
        hw["confidence"] = h.confidence;
    doc["hardware"] = hw;
    const auto& p = s.pricing;
    doc["pricing"] = {{"model", toString(p.model)},
                      {"utilization", p.utilization},
                      {"electricity_usd_per_kwh", p.electricityUsdPerKwh},
                      {"pue", p.pue},
                      {"amortization_years", p.amortizationYears},
                      {"hosting_usd_per_gpu_year", p.hostingUsdPerGpuYear}};
    return doc.dump(2) + "\n";
}

Scenario defaultScenario()
{
    Scenario s;
    s.modelSpec.form = ModelSpec::Form::Preset;
    s.modelSpec.presetId = "llama-3.1-8b";
    s.model = resolveModel(s.modelSpec);
    s.mode = Mode::Training;
    s.runtime = Runtime::Eager;
    s.training.method = TrainMethod::Lora;
    s.training.loraRank = 16;
    s.training.precision = TrainPrecision::BF16;
    s.training.optimizer = Optimizer::AdamW;
    s.training.microBatch = 4;
    s.training.seqLen = 2048;
    s.training.checkpointing = Checkpointing::Full;
    s.training.datasetTokens = 100e6;
    s.training.epochs = 2;
    s.inference.precision = InferPrecision::BF16;
    s.inference.batch = 16;
    s.inference.promptTokens = 1024;
    s.inference.outputTokens = 256;
    s.inference.targets.ttftMs = 1000;
    s.inference.targets.tpotMs = 50;
    s.name = autoScenarioName(s); // "Llama 3.1 8B: LoRA fine-tune": it follows the content
    return s;
}

std::string_view toString(Mode v) { return kModes[static_cast<std::size_t>(v)]; }
std::string_view toString(Runtime v) { return kRuntimes[static_cast<std::size_t>(v)]; }
std::string_view toString(TrainMethod v) { return kMethods[static_cast<std::size_t>(v)]; }
std::string_view toString(TrainPrecision v) { return kTrainPrecisions[static_cast<std::size_t>(v)]; }
std::string_view toString(Optimizer v) { return kOptimizers[static_cast<std::size_t>(v)]; }
std::string_view toString(Checkpointing v) { return kCheckpointing[static_cast<std::size_t>(v)]; }
std::string_view toString(InferPrecision v) { return kInferPrecisions[static_cast<std::size_t>(v)]; }
std::string_view toString(PricingModel v) { return kPricingModels[static_cast<std::size_t>(v)]; }

} // namespace gp
