// What a plan reads once from the model and the GPU, so that the memory and
// performance models never touch a string or the heap per rate: the linear
// projections of one transformer layer in a fixed array (mirrors
// ModelArch::layerLinears() in core/model/model.cpp, which tst_perfmodel
// compares on every preset), the LoRA adapters' places as bits, and the GPU's
// traits from its catalog strings.
#include "core/estimate/perfparts.h"
#include "core/estimate/sizing.h"

#include "core/model/modelcheck.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

unsigned loraModuleBit(std::string_view name)
{
    // By length first: a plan reads every lora_targets entry.
    auto is = [&](std::string_view module) { return name == module; };
    switch (name.size()) {
    case 6:
        return is("q_proj") ? kLoraQ : is("k_proj") ? kLoraK : is("v_proj") ? kLoraV : is("o_proj") ? kLoraO : 0u;
    case 7: return is("up_proj") ? kLoraUp : 0u;
    case 8: return is("q_a_proj") ? kLoraQA : is("q_b_proj") ? kLoraQB : 0u;
    case 9: return is("gate_proj") ? kLoraGate : is("down_proj") ? kLoraDown : is("kv_b_proj") ? kLoraKvB : 0u;
    case 18: return is("kv_a_proj_with_mqa") ? kLoraKvA : 0u;
    default: return 0u;
    }
}

LayerLinears layerLinears(const ModelArch& m)
{
    LayerLinears out;
    if (m.family == ModelFamily::Vision)
        return out;
    const std::int64_t h = m.hidden;
    const std::int64_t qOut = std::int64_t(m.heads) * m.headDim;
    if (m.mlaKvLoraRank > 0) {
        // MLA has no q/k/v projections; these are DeepSeek-V3's HF module names.
        const double qRankD = m.mlaQLoraRank == 0 ? double(kMlaQLoraRank) : std::max(0, m.mlaQLoraRank);
        const std::int64_t qRank = static_cast<std::int64_t>(qRankD);
        if (qRank > 0) {
            out.add("q_a_proj", kLoraQA, h, qRank, 1);
            out.add("q_b_proj", kLoraQB, qRank, std::int64_t(m.heads) * (m.headDim + m.mlaRopeHeadDim), 1);
        } else {
            out.add("q_proj", kLoraQ, h, std::int64_t(m.heads) * (m.headDim + m.mlaRopeHeadDim), 1);
        }
        out.add("kv_a_proj_with_mqa", kLoraKvA, h, std::int64_t(m.mlaKvLoraRank) + m.mlaRopeHeadDim, 1);
        out.add("kv_b_proj", kLoraKvB, m.mlaKvLoraRank, std::int64_t(m.heads) * (m.headDim + m.headDim), 1);
        out.add("o_proj", kLoraO, qOut, h, 1);
    } else {
        const std::int64_t kvOut = std::int64_t(m.kvHeads) * m.headDim;
        out.add("q_proj", kLoraQ, h, qOut, 1);
        out.add("k_proj", kLoraK, h, kvOut, 1);
        out.add("v_proj", kLoraV, h, kvOut, 1);
        out.add("o_proj", kLoraO, qOut, h, 1);
    }
    std::int64_t inner = m.ffnHidden;
    int perLayer = 1;
    if (m.moe.enabled()) {
        inner = m.moe.expertFfnHidden;
        perLayer = m.moe.active + m.moe.shared;
    }
    if (m.ffn == FfnKind::SwiGLU)
        out.add("gate_proj", kLoraGate, h, inner, perLayer);
    out.add("up_proj", kLoraUp, h, inner, perLayer);
    out.add("down_proj", kLoraDown, inner, h, perLayer);
    return out;
}

/// The LoRA adapters' places, read once: a bit per module training.lora_targets
/// names, and a flag per linear of the layer.
void markLoraTargets(Plan& p, const std::vector<std::string>& targets)
{
    for (const std::string& t : targets)
        p.loraModules |= loraModuleBit(t);
    for (int i = 0; i < p.linears.count; ++i) {
        LayerLinear& lin = p.linears.items[std::size_t(i)];
        lin.targeted = (p.loraModules & lin.bit) != 0;
    }
}

namespace {

/// What the models ask of a GPU's catalog strings (vendor, architecture,
/// interconnect, category), read once instead of in every rate.
struct GpuTraits {
    ArchFamily arch = ArchFamily::Other;
    bool nvidia = false;
    bool amd = false;
    int sm = 0;
    int nodeSize = 8;
    bool bridged = false;
};

GpuTraits readGpuTraits(const Gpu& gpu)
{
    GpuTraits t;
    t.arch = archFamily(gpu);
    t.nvidia = gpu.vendor == "NVIDIA";
    t.amd = gpu.vendor == "AMD";
    t.sm = t.nvidia ? smMajor(gpu) : 0;
    if (gpu.interconnect.find("72") != std::string::npos)
        t.nodeSize = 72; // NVL72 racks
    else if (gpu.isTpu())
        t.nodeSize = 256;
    else if (gpu.formFactor.find("Superchip") != std::string::npos)
        // A GH200 is rented and priced as one superchip (Lambda's "1x GH200"):
        // its 900 GB/s NVLink-C2C joins the GPU to its own Grace CPU, not to
        // another GPU, so a second GH200 is reached over the network.
        t.nodeSize = 1;
    t.bridged = gpu.interconnect.find("bridge") != std::string::npos;
    return t;
}

/// readGpuTraits, remembered for the last GPU seen on this thread: the traits
/// are a function of the five strings alone, and callers estimate one GPU many
/// times over (the planner's layouts, calibrate's refits).
const GpuTraits& gpuTraits(const Gpu& gpu)
{
    struct Last {
        std::string vendor, architecture, interconnect, category, formFactor;
        GpuTraits traits;
        bool valid = false;
    };
    thread_local Last last;
    if (!last.valid || last.architecture != gpu.architecture || last.vendor != gpu.vendor ||
        last.interconnect != gpu.interconnect || last.category != gpu.category || last.formFactor != gpu.formFactor) {
        last.traits = readGpuTraits(gpu);
        last.vendor = gpu.vendor;
        last.architecture = gpu.architecture;
        last.interconnect = gpu.interconnect;
        last.category = gpu.category;
        last.formFactor = gpu.formFactor;
        last.valid = true;
    }
    return last.traits;
}

} // namespace

void setGpuTraits(Plan& p, const Gpu& gpu)
{
    const GpuTraits& t = gpuTraits(gpu);
    p.arch = t.arch;
    p.family = &p.cal->families[std::size_t(t.arch)]; // = cal->family(gpu)
    p.nvidia = t.nvidia;
    p.amd = t.amd;
    p.sm = t.sm;
    p.nodeSize = t.nodeSize;
    p.bridged = t.bridged;
    const double at8192 = 8192 / (8192 + p.cal->gemmShapeC);
    p.gemmRef = std::pow(at8192, 3);
}

} // namespace gp::detail
