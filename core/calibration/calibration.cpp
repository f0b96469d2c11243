#include "core/calibration/calibration.h"
#include "core/calibration/calibrationio.h"

#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/base/jsonparse.h"
#include "core/base/jsonread.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>

namespace gp {

// Generated at build time from resources/calibration/builtin-calibration.json by resources/embed.cmake.
extern const char kEmbeddedCalibrationJson[];
extern const std::size_t kEmbeddedCalibrationJsonSize;

namespace {

using nlohmann::json;

// A calibration table is a few tens of KB; anything far larger is a wrong file.
constexpr std::size_t kMaxDocumentBytes = 4u * 1024u * 1024u;

struct Field {
    const char* id;
    double Calibration::*member;
};

// The ids a calibration file must give, in the built-in file's order.
constexpr Field kFields[] = {
    {"gemm_eff_fp32", &Calibration::gemmEffFp32},
    {"gemm_eff_tf32", &Calibration::gemmEffTf32},
    {"gemm_eff_fp16", &Calibration::gemmEffFp16},
    {"gemm_eff_bf16", &Calibration::gemmEffBf16},
    {"gemm_eff_fp8", &Calibration::gemmEffFp8},
    {"gemm_eff_other", &Calibration::gemmEffOther},
    {"gemm_shape_c", &Calibration::gemmShapeC},
    {"bandwidth_eff", &Calibration::bandwidthEff},
    {"decode_bandwidth_eff", &Calibration::decodeBandwidthEff},
    {"attn_eff_hopper_blackwell", &Calibration::attnEffHopperBlackwell},
    {"attn_eff_nvidia", &Calibration::attnEffNvidia},
    {"attn_eff_non_nvidia", &Calibration::attnEffNonNvidia},
    {"ew_traffic_eager", &Calibration::ewTrafficEager},
    {"ew_traffic_optimized", &Calibration::ewTrafficOptimized},
    {"train_gemm_derate_optimized", &Calibration::trainGemmDerateOptimized},
    {"logit_traffic_eager", &Calibration::logitTrafficEager},
    {"logit_traffic_optimized", &Calibration::logitTrafficOptimized},
    {"kernel_s_train_eager", &Calibration::kernelSTrainEager},
    {"kernel_s_train_optimized", &Calibration::kernelSTrainOptimized},
    {"kernel_s_infer_eager", &Calibration::kernelSInferEager},
    {"kernel_s_infer_optimized", &Calibration::kernelSInferOptimized},
    {"kernel_s_decode_eager", &Calibration::kernelSDecodeEager},
    {"decode_layer_s_graph", &Calibration::decodeLayerSGraph},
    {"decode_gemm_min_rows", &Calibration::decodeGemmMinRows},
    {"kernels_layer_swiglu_amp", &Calibration::kernelsLayerSwigluAmp},
    {"kernels_layer_swiglu", &Calibration::kernelsLayerSwiglu},
    {"kernels_layer_gelu_amp", &Calibration::kernelsLayerGeluAmp},
    {"kernels_layer_gelu", &Calibration::kernelsLayerGelu},
    {"kernels_per_expert", &Calibration::kernelsPerExpert},
    {"kernels_per_lora_target", &Calibration::kernelsPerLoraTarget},
    {"kernels_optimized_fusion", &Calibration::kernelsOptimizedFusion},
    {"kernels_optimized_min", &Calibration::kernelsOptimizedMin},
    {"prefill_ew_factor", &Calibration::prefillEwFactor},
    {"prefill_kernels_layer_optimized", &Calibration::prefillKernelsLayerOptimized},
    {"prefill_kernels_layer_eager", &Calibration::prefillKernelsLayerEager},
    {"conv_eff", &Calibration::convEff},
    {"vision_ew_traffic", &Calibration::visionEwTraffic},
    {"vision_checkpoint_full_factor", &Calibration::visionCheckpointFullFactor},
    {"fsdp_overlap", &Calibration::fsdpOverlap},
    {"ddp_overlap", &Calibration::ddpOverlap},
    {"pcie_eff", &Calibration::pcieEff},
    {"allreduce_latency_s_base", &Calibration::allReduceLatencySBase},
    {"allreduce_latency_s_per_gpu", &Calibration::allReduceLatencySPerGpu},
    {"context_cuda_mib", &Calibration::contextCudaMib},
    {"context_rocm_mib", &Calibration::contextRocmMib},
    {"context_other_mib", &Calibration::contextOtherMib},
    {"buffers_train_eager_mib", &Calibration::buffersTrainEagerMib},
    {"buffers_train_optimized_mib", &Calibration::buffersTrainOptimizedMib},
    {"buffers_infer_mib", &Calibration::buffersInferMib},
    {"allocator_slack", &Calibration::allocatorSlack},
    {"allocator_slack_checkpoint", &Calibration::allocatorSlackCheckpoint},
    {"allocator_slack_transient", &Calibration::allocatorSlackTransient},
    {"allocator_slack_weights", &Calibration::allocatorSlackWeights},
    {"activation_optimized_factor", &Calibration::activationOptimizedFactor},
    {"activation_selective_factor", &Calibration::activationSelectiveFactor},
    {"activation_gpt2_extra", &Calibration::activationGpt2Extra},
    {"buffers_infer_vision_mib", &Calibration::buffersInferVisionMib},
    {"usable_memory_fraction", &Calibration::usableMemoryFraction},
    {"uncertainty_memory", &Calibration::uncertaintyMemory},
    {"uncertainty_throughput_training", &Calibration::uncertaintyThroughputTraining},
    {"uncertainty_throughput_inference", &Calibration::uncertaintyThroughputInference},
    {"uncertainty_throughput_vision", &Calibration::uncertaintyThroughputVision},
    {"uncertainty_widen_memory_other_nvidia", &Calibration::uncertaintyWidenMemoryOtherNvidia},
    {"uncertainty_widen_memory_non_nvidia", &Calibration::uncertaintyWidenMemoryNonNvidia},
    {"uncertainty_widen_throughput_approximate", &Calibration::uncertaintyWidenThroughputApproximate},
    {"uncertainty_widen_memory_approximate", &Calibration::uncertaintyWidenMemoryApproximate},
    {"uncertainty_widen_throughput_multi_gpu", &Calibration::uncertaintyWidenThroughputMultiGpu},
    {"uncertainty_widen_memory_multi_gpu", &Calibration::uncertaintyWidenMemoryMultiGpu},
    {"uncertainty_widen_throughput_qlora", &Calibration::uncertaintyWidenThroughputQlora},
    {"uncertainty_widen_throughput_moe", &Calibration::uncertaintyWidenThroughputMoe},
    {"uncertainty_widen_memory_moe", &Calibration::uncertaintyWidenMemoryMoe},
    {"uncertainty_widen_throughput_optimized_training", &Calibration::uncertaintyWidenThroughputOptimizedTraining},
    // Round-2 performance terms (perfmodel.cpp)
    {"attn_fwd_eff_hopper_blackwell", &Calibration::attnFwdEffHopperBlackwell},
    // Serving engines (runtime "serving")
    {"serving_chunk_tokens", &Calibration::servingChunkTokens},
    {"serving_kv_block_tokens", &Calibration::servingKvBlockTokens},
    {"serving_engine_mib", &Calibration::servingEngineMib},
    // Round-3 mechanisms (perfmodel.cpp)
    {"kernel_s_device", &Calibration::kernelSDevice},
    {"kernel_s_train_cnn_eager", &Calibration::kernelSTrainCnnEager},
    {"conv_eff_hopper_blackwell", &Calibration::convEffHopperBlackwell},
    // Issue #16: architecture families and collectives
    {"uncertainty_unmeasured_family", &Calibration::uncertaintyUnmeasuredFamily},
    {"nvlink_bus_eff", &Calibration::nvlinkBusEff},
    {"nvlink_bus_eff_decode", &Calibration::nvlinkBusEffDecode},
    {"serving_pp_host_s_per_seq", &Calibration::servingPpHostSPerSeq},
    {"serving_step_s_per_seq", &Calibration::servingStepSPerSeq},
    {"serving_decode_allreduce_eff", &Calibration::servingDecodeAllreduceEff},
    {"attn_triton_share", &Calibration::attnTritonShare},
};

// Per-family constants: "family_<id>_<name>" and "uncertainty_family_<id>_<kind>"
// (training, inference, memory) for every family in kScaledFamilies, after the
// fields above. Version 1 tables gave one "uncertainty_family_<id>_throughput".
struct FamilyField {
    const char* name;
    double FamilyConstants::*member;
};
constexpr FamilyField kFamilyFields[] = {
    {"gemm16_scale", &FamilyConstants::gemm16},       {"gemm8_scale", &FamilyConstants::gemm8},
    {"bandwidth_scale", &FamilyConstants::bandwidth},
    {"collective_scale", &FamilyConstants::collective},
    {"vllm_stock_scale", &FamilyConstants::vllmStock},
    {"clock_power_w", &FamilyConstants::clockPowerW},
};

constexpr std::pair<BandKind, double FamilyConstants::*> kBandFields[] = {
    {BandKind::Training, &FamilyConstants::uncertaintyTraining},
    {BandKind::Inference, &FamilyConstants::uncertaintyInference},
    {BandKind::Memory, &FamilyConstants::uncertaintyMemory},
};

/// One constant: a named member, or a member of one family's FamilyConstants.
struct Slot {
    std::string id;
    double Calibration::*member = nullptr;
    int family = -1;
    double FamilyConstants::*familyMember = nullptr;
    double& in(Calibration& c) const { return member ? c.*member : c.families[std::size_t(family)].*familyMember; }
};

const std::vector<Slot>& slots()
{
    static const std::vector<Slot> all = [] {
        std::vector<Slot> v;
        for (const Field& f : kFields)
            v.push_back({f.id, f.member, -1, nullptr});
        for (ArchFamily fam : kScaledFamilies) {
            const std::string base = std::string("family_") + archFamilyId(fam) + "_";
            for (const FamilyField& ff : kFamilyFields)
                v.push_back({base + ff.name, nullptr, int(fam), ff.member});
            for (const auto& [kind, member] : kBandFields)
                v.push_back({std::string("uncertainty_family_") + archFamilyId(fam) + "_" + bandKindId(kind), nullptr,
                             int(fam), member});
        }
        return v;
    }();
    return all;
}

constexpr const char* kKinds[] = {"fitted", "measured", "literature", "assumed"};

const Slot* findField(std::string_view id)
{
    for (const Slot& f : slots())
        if (id == f.id)
            return &f;
    return nullptr;
}

/// A version 1 family band, "uncertainty_family_<id>_throughput": the family
/// it belongs to, or nullptr.
const char* v1FamilyBand(std::string_view id)
{
    for (ArchFamily fam : kScaledFamilies)
        if (id == std::string("uncertainty_family_") + archFamilyId(fam) + "_throughput")
            return archFamilyId(fam);
    return nullptr;
}

/// A per-kind family band (uncertainty_family_<id>_<kind>), new in version 2.
bool isKindBand(const Slot& f) { return f.familyMember && f.id.rfind("uncertainty_family_", 0) == 0; }

std::string num(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

json parseDocument(std::string_view text)
{
    if (text.size() > kMaxDocumentBytes)
        throw InputError("", "document is " + std::to_string(text.size()) + " bytes; the limit is " +
                                 std::to_string(kMaxDocumentBytes) + " bytes (4 MiB)");
    // Depth-limited (a table nests 3 levels), and a key given twice is refused:
    // which of two "value"s is meant cannot be guessed.
    JsonParseOptions options;
    options.duplicates = DuplicateKeys::Refuse;
    return parseJson(text, "", options);
}

/// Reads an optional string field into `out`; a present non-string is a problem.
void readText(const json& entry, const char* key, const std::string& base, std::string& out,
              std::vector<Diagnostic>& problems)
{
    const auto it = entry.find(key);
    if (it == entry.end())
        return;
    if (!it->is_string()) {
        problems.push_back({base + "." + key, "must be a string"});
        return;
    }
    out = it->get<std::string>();
}

/// Reads a numeric field; false when absent or not a finite number (reported when required or present).
bool readNumber(const json& entry, const char* key, const std::string& base, bool required, double& out,
                std::vector<Diagnostic>& problems)
{
    const auto it = entry.find(key);
    if (it == entry.end()) {
        if (required)
            problems.push_back({base + "." + key, "missing (a number is required)"});
        return false;
    }
    if (!it->is_number()) {
        problems.push_back({base + "." + key, "must be a number"});
        return false;
    }
    const double v = it->get<double>();
    if (!std::isfinite(v)) {
        problems.push_back({base + "." + key, "must be a finite number"});
        return false;
    }
    out = v;
    return true;
}

/// `kinds`: the kind of each known constant as the file gives it (a version 1
/// family band once, though it fills two members).
void checkHeader(const json& doc, const std::vector<std::string>& kinds, std::vector<Diagnostic>& problems)
{
    if (const auto f = doc.find("format"); f != doc.end() && (!f->is_string() || *f != "gpuplanner-calibration"))
        problems.push_back({"format", "must be \"gpuplanner-calibration\""});
    if (const auto n = doc.find("count"); n != doc.end()) {
        if (!n->is_number_unsigned() || n->get<std::size_t>() != kinds.size())
            problems.push_back({"count", "says " + detail::describe(*n) + " but the file has " +
                                             std::to_string(kinds.size()) + " known constants"});
    }
    if (const auto k = doc.find("counts"); k != doc.end()) {
        if (!k->is_object()) {
            problems.push_back({"counts", "must be an object of kind: count"});
            return;
        }
        // A std::map copy rather than json::find against end(): GCC's -O2 flow
        // analysis sees a possible null in nlohmann's end() iterator here.
        const auto counts = k->get<std::map<std::string, json>>();
        for (const char* kind : kKinds) {
            const auto have = std::size_t(std::count(kinds.begin(), kinds.end(), kind));
            const auto found = counts.find(kind);
            const json* said = found != counts.end() ? &found->second : nullptr;
            const std::size_t n = said && said->is_number_unsigned() ? said->get<std::size_t>() : 0;
            if (n != have)
                problems.push_back({std::string("counts.") + kind,
                                    "says " + (said ? detail::describe(*said) : std::string("nothing")) + " but " +
                                        std::to_string(have) + " constants have this kind"});
        }
    }
}

/// Parses `text`; `reference` (the built-in table) supplies the bounds and the
/// metadata a user file leaves out. Without a reference every field is required.
Calibration parse(std::string_view text, const Calibration* reference)
{
    const json doc = parseDocument(text);
    if (!doc.is_object() || !doc.contains("constants") || !doc["constants"].is_array())
        throw InputError("constants", "a calibration file is a JSON object with a \"constants\" array");
    // Versions 1 and 2 (kCalibrationFormatVersion); a file from a later program
    // (or "banana") is not guessed at. Without a version, a file is read as
    // whichever its family bands are.
    int version = 0;
    if (const auto v = doc.find("version"); v != doc.end()) {
        if (!v->is_number_integer() || v->get<long long>() < 1 || v->get<long long>() > kCalibrationFormatVersion)
            throw InputError("version", "must be 1 or 2 (the calibration format versions this program reads), got " +
                                            detail::describe(*v));
        version = int(v->get<long long>());
    }
    const json& list = doc["constants"];

    std::vector<Diagnostic> problems;
    Calibration c;
    std::map<std::string, std::size_t, std::less<>> firstIndex;
    std::vector<std::string> fileKinds; // one per known constant of the file
    bool v1Bands = version == 1;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json& item = list[i];
        const std::string base = "constants[" + std::to_string(i) + "]";
        if (!item.is_object()) {
            problems.push_back({base, "expected an object {\"id\", \"value\", ...}"});
            continue;
        }
        const auto idIt = item.find("id");
        if (idIt == item.end() || !idIt->is_string() || idIt->get<std::string>().empty()) {
            problems.push_back({base + ".id", "missing (a non-empty string is required)"});
            continue;
        }
        const std::string id = idIt->get<std::string>();
        // The members this constant sets: its own, or (a version 1 family band)
        // the family's training and inference bands.
        std::vector<const Slot*> targets;
        if (const Slot* field = findField(id); field && !(version == 1 && isKindBand(*field))) {
            targets.push_back(field);
        } else if (const char* fam = version != 2 ? v1FamilyBand(id) : nullptr) {
            v1Bands = true;
            for (const char* kind : {"training", "inference"})
                targets.push_back(findField(std::string("uncertainty_family_") + fam + "_" + kind));
        }
        if (targets.empty()) {
            c.warnings.push_back(base + ".id: unknown constant \"" + id + "\"" +
                                 (version ? " in a version " + std::to_string(version) + " table" : std::string()) +
                                 ", ignored");
            continue;
        }
        bool twice = false;
        for (const Slot* t : targets)
            if (const auto [at, fresh] = firstIndex.emplace(t->id, i); !fresh) {
                problems.push_back({base + ".id", "\"" + id + "\" is given twice (first at constants[" +
                                                      std::to_string(at->second) + "])"});
                twice = true;
                break;
            }
        if (twice)
            continue;
        const std::size_t before = problems.size();
        std::vector<CalibrationEntry> made;
        for (const Slot* t : targets) {
            const CalibrationEntry* ref = reference ? reference->find(t->id) : nullptr;
            CalibrationEntry e = ref ? *ref : CalibrationEntry{};
            e.id = t->id;
            std::vector<Diagnostic> mine; // one list for the constant, even when it fills two members
            double value = 0;
            const bool hasValue = readNumber(item, "value", base, true, value, mine);
            double lo = 0;
            double hi = 0;
            const bool hasMin = readNumber(item, "min", base, !ref, lo, mine);
            const bool hasMax = readNumber(item, "max", base, !ref, hi, mine);
            if (hasMin && hasMax && lo > hi)
                mine.push_back({base + ".min", "min " + num(lo) + " is above max " + num(hi)});
            if (ref) {
                // A user file may narrow the physical bounds, never widen them.
                e.min = hasMin ? std::max(lo, ref->min) : ref->min;
                e.max = hasMax ? std::min(hi, ref->max) : ref->max;
            } else {
                e.min = lo;
                e.max = hi;
            }
            readText(item, "unit", base, e.unit, mine);
            readText(item, "kind", base, e.kind, mine);
            readText(item, "fitted_on", base, e.fittedOn, mine);
            readText(item, "form", base, e.form, mine);
            if (!ref) {
                for (const char* key : {"unit", "kind", "fitted_on", "form"})
                    if (!item.contains(key))
                        mine.push_back({base + "." + key, "missing (the built-in table documents every constant)"});
            }
            bool kindKnown = e.kind.empty() && ref;
            for (const char* k : kKinds)
                kindKnown = kindKnown || e.kind == k;
            if (!kindKnown)
                mine.push_back({base + ".kind", "\"" + e.kind + "\" is not one of fitted, measured, literature, assumed"});
            if (hasValue && (value < e.min || value > e.max))
                mine.push_back({base + ".value", id + " = " + num(value) + " is outside its bounds [" + num(e.min) +
                                                     ", " + num(e.max) + "]"});
            if (problems.size() == before)
                problems.insert(problems.end(), mine.begin(), mine.end());
            e.value = value;
            made.push_back(std::move(e));
        }
        if (problems.size() != before)
            continue;
        for (std::size_t k = 0; k < targets.size(); ++k) {
            targets[k]->in(c) = made[k].value;
            c.entries.push_back(std::move(made[k]));
        }
        fileKinds.push_back(c.entries.back().kind);
    }
    if (v1Bands) {
        // A version 1 table has no family memory bands: 0, the measured memory
        // band widened for another architecture applies (as version 1 did).
        for (const Slot& f : slots())
            if (isKindBand(f) && f.familyMember == &FamilyConstants::uncertaintyMemory && !firstIndex.count(f.id)) {
                const CalibrationEntry* ref = reference ? reference->find(f.id) : nullptr;
                CalibrationEntry e = ref ? *ref : CalibrationEntry{f.id, 0, "relative 1-sigma", 0, 1, "fitted", "", ""};
                e.value = 0;
                e.fittedOn = "a version 1 calibration table: no family memory band (0: the measured memory band, "
                             "widened for another architecture, applies)";
                firstIndex.emplace(f.id, list.size());
                f.in(c) = 0;
                c.entries.push_back(std::move(e));
            }
    }
    for (const Slot& f : slots())
        if (!firstIndex.count(f.id))
            problems.push_back({"constants", "missing constant \"" + std::string(f.id) + "\"" +
                                                 (isKindBand(f) && version != 1
                                                      ? " (a version 1 table names the family band "
                                                        "uncertainty_family_<family>_throughput and says \"version\": 1)"
                                                      : std::string())});
    if (problems.empty())
        checkHeader(doc, fileKinds, problems);
    if (!problems.empty())
        throw InputError(std::move(problems));
    return c;
}

} // namespace

const CalibrationEntry* Calibration::find(const std::string& id) const
{
    for (const auto& e : entries)
        if (e.id == id)
            return &e;
    return nullptr;
}

bool Calibration::set(const std::string& id, double value)
{
    const Slot* field = findField(id);
    if (!field)
        return false;
    for (auto& e : entries)
        if (e.id == id)
            e.value = value;
    field->in(*this) = value;
    return true;
}

int calibrationConstantCount() { return int(slots().size()); }

ArchFamily archFamily(const Gpu& g)
{
    const std::string& a = g.architecture;
    auto has = [&](const char* s) { return a.find(s) != std::string::npos; };
    if (g.vendor == "Google" || has("TPU"))
        return ArchFamily::Tpu;
    if (has("Gaudi"))
        return ArchFamily::Gaudi;
    if (has("CDNA 3") || has("CDNA 4") || has("CDNA3") || has("CDNA4"))
        return ArchFamily::Cdna;
    if (has("Hopper"))
        return ArchFamily::Hopper;
    if (has("Blackwell"))
        return has("GB2") ? ArchFamily::BlackwellGb2 : ArchFamily::Blackwell;
    if (has("Ada"))
        return ArchFamily::Ada;
    if (has("Ampere"))
        return ArchFamily::Ampere;
    return ArchFamily::Other;
}

const char* archFamilyId(ArchFamily f)
{
    switch (f) {
    case ArchFamily::Hopper: return "hopper";
    case ArchFamily::Blackwell: return "blackwell";
    case ArchFamily::BlackwellGb2: return "blackwell_gb2";
    case ArchFamily::Ada: return "ada";
    case ArchFamily::Ampere: return "ampere";
    case ArchFamily::Cdna: return "cdna";
    case ArchFamily::Gaudi: return "gaudi";
    case ArchFamily::Tpu: return "tpu";
    case ArchFamily::Other: break;
    }
    return "other";
}

const char* bandKindId(BandKind k)
{
    switch (k) {
    case BandKind::Training: return "training";
    case BandKind::Inference: return "inference";
    case BandKind::Memory: break;
    }
    return "memory";
}

const char* archFamilyLabel(ArchFamily f)
{
    switch (f) {
    case ArchFamily::Hopper: return "Hopper";
    case ArchFamily::Blackwell: return "Blackwell (sm_100)";
    case ArchFamily::BlackwellGb2: return "Blackwell GB2xx (sm_120)";
    case ArchFamily::Ada: return "Ada Lovelace";
    case ArchFamily::Ampere: return "Ampere";
    case ArchFamily::Cdna: return "CDNA 3/4";
    case ArchFamily::Gaudi: return "Gaudi";
    case ArchFamily::Tpu: return "TPU";
    case ArchFamily::Other: break;
    }
    return "other (Volta, Turing, CDNA 2)";
}

std::string_view detail::builtinCalibrationJson()
{
    return {kEmbeddedCalibrationJson, kEmbeddedCalibrationJsonSize};
}

Calibration detail::parseBuiltinCalibration() { return parse(builtinCalibrationJson(), nullptr); }

int detail::calibrationSlot(std::string_view id)
{
    const Slot* f = findField(id);
    return f ? int(f - slots().data()) : -1;
}

void detail::addCalibrationEntry(Calibration& c, int slot, CalibrationEntry e)
{
    slots()[std::size_t(slot)].in(c) = e.value;
    c.entries.push_back(std::move(e));
}

Calibration loadCalibration(const std::string& jsonText) { return parse(jsonText, &builtinCalibration()); }

} // namespace gp
