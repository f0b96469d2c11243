// Reading a scenario file: the bounded JSON parse, each section's fields checked
// against the spec (/work/shared/spec/scenario-format.md) with a path and a reason
// for every problem, and the model resolved (preset, explicit shape, hf_config or
// size only). Validation of the whole is in scenariocheck.cpp, writing in
// scenariowrite.cpp.
#include "core/scenario/scenario.h"
#include "core/scenario/scenariowords.h"

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

using namespace scenariowords;

namespace scenariowords {

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

} // namespace scenariowords

namespace {

constexpr std::size_t kMaxScenarioBytes = 16u << 20;  // 16 MiB: far above any real scenario
constexpr int kMaxNesting = 64;                       // real scenarios nest 4 deep; hf configs ~6


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

} // namespace gp
