// SGLang's KV pool at start, computed the way SGLang computes it (sources in
// sglangpool.h). The memory SGLang profiles is taken as the existing SGLang header
// did: --mem-fraction-static x the engine's total GPU memory - (predicted weights
// + calibrated CUDA context); how that pool becomes tokens depends on the model.
#include "core/engines/sglangpool.h"

#include "core/base/units.h"
#include "core/calibration/calibration.h"
#include "core/engines/launchdetail.h"
#include "core/estimate/sizing.h"

#include <algorithm>
#include <cmath>

namespace gp {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0; // SGLang's GB (1 << 30)

/// model_config.get_num_kv_heads(tp): max(1, total KV heads // tp).
long long kvHeadsPerGpu(const ModelArch& m, int tp) { return std::max(1, m.kvHeads / std::max(1, tp)); }

/// kv_cache_configurator.py _handle_max_mamba_cache, its default branch
/// (max_mamba_cache_size unset, radix cache on, no speculative decoding):
/// mamba_budget = rest x ratio / (1 + ratio); max_mamba_cache_size =
/// int((budget_bytes - per_req) // per_req); the KV keeps rest - (size + 1) x
/// per_req (the pool allocates one padding slot). Then DefaultPoolConfigurator:
/// max_total_num_tokens = int(rest_bytes) // cell_size (page size 1).
void mambaSplit(const SglangPool& p, double perReq, long long& size, long long& tokens)
{
    const double restGiB = p.restBytes / kGiB;
    const double budgetBytes = restGiB * p.mambaFullMemoryRatio / (1 + p.mambaFullMemoryRatio) * kGiB;
    size = static_cast<long long>(std::floor((budgetBytes - perReq) / perReq));
    const double kvGiB = restGiB - double(size + 1) * perReq / kGiB;
    const double kvBytes = std::floor(kvGiB * kGiB);
    tokens = kvBytes > 0 ? static_cast<long long>(std::floor(kvBytes / p.cellBytes)) : 0;
}

} // namespace

SglangPool predictSglangPool(const LaunchTarget& t, double memoryFraction, const Calibration& cal)
{
    SglangPool p;
    const ModelArch& m = t.scenario.model;
    const Hardware& h = t.scenario.hardware;
    const int tp = std::max(1, h.tp);
    const int pp = std::max(1, h.pp);
    p.memoryFraction = memoryFraction;
    p.capacityBytes = engineTotalBytes(t);
    p.restBytes = memoryFraction * p.capacityBytes - t.estimate.memory.weights - cal.contextCudaMib * units::kMiB;
    const double uniformCell = kvBytesPerTokenPerGpu(t);
    p.cellBytes = uniformCell;
    if (p.restBytes <= 0 || uniformCell <= 0)
        return p;
    const detail::Plan plan = detail::makePlan(t.scenario, t.gpu, false);
    // One attention layer's K and V for one token on this GPU (head_dim + v_head_dim).
    const double layerToken = double(kvHeadsPerGpu(m, tp)) * 2.0 * m.headDim * plan.kvBytes;

    if (m.linearLayers > 0 && m.linearStateBytes > 0 && m.mlaKvLoraRank == 0) {
        // A mambaish model (configs/hybrid_arch.py: Qwen3-Next's Gated DeltaNet,
        // Nemotron-H's and Granite 4.0-H's Mamba-2 layers).
        p.kind = SglangPool::Kind::Mamba;
        p.attentionLayers = detail::layersPerStage(m.fullAttentionLayers(), pp);
        p.mambaLayers = detail::layersPerStage(m.linearLayers, pp);
        p.cellBytes = layerToken * p.attentionLayers;
        if (p.cellBytes <= 0)
            return p;
        const auto& d = m.deltaNet;
        const auto& b = m.mamba2Shape;
        double conv = 0, ssm = 0; // elements a layer per GPU
        if (d.valueHeads > 0 && d.keyDim > 0) {
            // configs/qwen3_next.py mamba2_cache_params: conv (conv_dim / tp,
            // kernel - 1), temporal (value heads / tp, key dim, value dim).
            const double convDim = 2.0 * d.keyHeads * d.keyDim + double(d.valueHeads) * d.valueDim;
            conv = std::floor(convDim / tp) * (d.convKernel - 1);
            ssm = double(d.valueHeads / tp) * d.keyDim * d.valueDim;
        } else if (b.heads > 0 && b.stateSize > 0) {
            // configs/mamba_utils.py Mamba2CacheParams.shape: n_groups grows by
            // extra_groups_for_head_shards (tp - n_groups when tp does not divide
            // it); conv (intermediate + 2 x n_groups x d_state) / tp x (kernel - 1),
            // temporal (heads / tp, head_dim, d_state).
            const int groups = b.groups % tp == 0 ? b.groups : tp;
            const double convDim = double(b.heads) * b.headDim + 2.0 * groups * b.stateSize;
            conv = std::floor(convDim / tp) * (b.convKernel - 1);
            ssm = double(b.heads / tp) * b.headDim * b.stateSize;
        }
        if (conv + ssm > 0) {
            // Conv state bf16, SSM state float32 (configs/mamba_utils.py
            // mamba2_state_dtype: float32 unless SGLANG_MAMBA_SSM_DTYPE or the
            // config's mamba_ssm_dtype says otherwise).
            p.stateSplitKnown = true;
            p.stateBytesPerRequest = (conv * 2 + ssm * 4) * p.mambaLayers;
            p.stateBytesPerRequestHigh = p.stateBytesPerRequest;
            mambaSplit(p, p.stateBytesPerRequest, p.mambaCacheSize, p.maxTotalTokens);
            p.mambaCacheSizeHigh = p.mambaCacheSize;
            p.maxTotalTokensHigh = p.maxTotalTokens;
            p.convBytes = double(p.mambaCacheSize + 1) * conv * 2 * p.mambaLayers;
            p.ssmBytes = double(p.mambaCacheSize + 1) * ssm * 4 * p.mambaLayers;
        } else {
            // A custom model records only its bf16 state total S = 2 (conv + ssm)
            // elements (linear_state_bytes); SGLang keeps the SSM part in float32,
            // so a request takes 2 conv + 4 ssm bytes: more than S, at most 2 S.
            const double bf16 = m.linearStateBytes / tp * p.mambaLayers;
            p.stateBytesPerRequest = bf16;
            p.stateBytesPerRequestHigh = 2 * bf16;
            long long sizeS = 0, tokensS = 0, size2S = 0, tokens2S = 0;
            mambaSplit(p, bf16, sizeS, tokensS);
            mambaSplit(p, 2 * bf16, size2S, tokens2S);
            p.mambaCacheSize = size2S;
            p.mambaCacheSizeHigh = sizeS;
            p.maxTotalTokens = std::min(tokensS, tokens2S);
            p.maxTotalTokensHigh = std::max(tokensS, tokens2S);
        }
        return p;
    }

    // model_config.py is_hybrid_swa_model: of the architectures this planner
    // reads, GptOssForCausalLM (sliding layers; the only one with attention
    // sinks) and Llama4ForConditionalGeneration (chunked layers, taken as SWA
    // layers by get_hybrid_layer_ids). Gemma 2/3 are switched off
    // (arg_groups/overrides.py _gemma2_gemma3_overrides: disable_hybrid_swa_memory).
    const bool gptOss = m.slidingLayers > 0 && m.slidingWindow > 0 && m.attentionSinks;
    const bool llama4 = m.chunkedLayers > 0 && m.chunkSize > 0;
    if ((gptOss || llama4) && m.mlaKvLoraRank == 0 && m.fullAttentionLayers() > 0) {
        p.kind = SglangPool::Kind::HybridSwa;
        // HybridSWAPoolConfigurator counts the model's layer ids, not a PP stage's.
        p.fullLayers = m.fullAttentionLayers();
        p.swaLayers = gptOss ? m.slidingLayers : m.chunkedLayers;
        p.window = gptOss ? m.slidingWindow : m.chunkSize;
        // cell = F x full_per_token + ratio x S x swa_per_token;
        // max_total_num_tokens = int(available // cell) = full_layer_tokens;
        // swa_layer_tokens = int(full x ratio) (page size 1).
        p.cellBytes = layerToken * p.fullLayers + p.swaFullTokensRatio * layerToken * p.swaLayers;
        p.maxTotalTokens = static_cast<long long>(std::floor(std::floor(p.restBytes) / p.cellBytes));
        p.swaTokens = static_cast<long long>(std::floor(double(p.maxTotalTokens) * p.swaFullTokensRatio));
        return p;
    }

    p.maxTotalTokens = static_cast<long long>(std::floor(p.restBytes / uniformCell));
    p.swaLayers = m.slidingLayers + m.chunkedLayers; // windowed, yet pooled like full layers
    p.window = m.slidingLayers > 0 ? m.slidingWindow : m.chunkSize;
    return p;
}

std::vector<std::string> sglangPoolHeader(const SglangPool& p, int chunk, int batch)
{
    using detail::grouped;
    using detail::num;
    using units::bytesToGiB;
    const std::string pool = num(bytesToGiB(p.restBytes), 2) + " GiB";
    const std::string logged = "  max_total_num_tokens=" + std::to_string(p.maxTotalTokens) + ", chunked_prefill_size=" +
                               std::to_string(chunk) + ", ... (managers/scheduler.py)";
    std::vector<std::string> out;
    if (p.kind == SglangPool::Kind::HybridSwa) {
        out.push_back("At start SGLang takes --mem-fraction-static x GPU memory - (weights + CUDA context) = " + pool +
                      " per GPU for its KV pools. This model gets SGLang's hybrid SWA memory pool (model_config.py "
                      "is_hybrid_swa_model; pool_configurator.py HybridSWAPoolConfigurator): its " +
                      std::to_string(p.fullLayers) + " full-attention layers keep max_total_num_tokens tokens each, its " +
                      std::to_string(p.swaLayers) + " windowed layers (" + grouped(p.window) +
                      " tokens) --swa-full-tokens-ratio " + num(p.swaFullTokensRatio, 1) +
                      " of that, so a token costs " + num(p.cellBytes / 1024, 1) + " KiB per GPU. It logs:");
        out.push_back("  Use sliding window memory pool. full_layer_tokens=" + std::to_string(p.maxTotalTokens) +
                      ", swa_layer_tokens=" + std::to_string(p.swaTokens));
        out.push_back(logged);
    } else if (p.kind == SglangPool::Kind::Mamba) {
        const double r = p.mambaFullMemoryRatio;
        out.push_back("At start SGLang takes --mem-fraction-static x GPU memory - (weights + CUDA context) = " + pool +
                      " per GPU, and for this hybrid model (" + std::to_string(p.mambaLayers) + " state layers, " +
                      std::to_string(p.attentionLayers) + " attention layers per GPU) first gives --mamba-full-memory-ratio " +
                      num(r, 1) + " / " + num(1 + r, 1) + " of it to the per-request state pool, max_mamba_cache_size + 1 "
                      "slots of " + num(p.stateBytesPerRequest / units::kMiB, 1) +
                      (p.stateSplitKnown ? std::string()
                                         : " to " + num(p.stateBytesPerRequestHigh / units::kMiB, 1)) +
                      " MiB (conv state bf16, SSM state float32), and the rest to the attention layers' KV at " +
                      num(p.cellBytes / 1024, 1) + " KiB per token (kv_cache_configurator.py _handle_max_mamba_cache).");
        if (p.stateSplitKnown) {
            out.push_back("It logs:");
            out.push_back("  Mamba Cache is allocated. max_mamba_cache_size: " + std::to_string(p.mambaCacheSize) +
                          ", conv_state size: " + num(p.convBytes / kGiB, 2) + "GB, ssm_state size: " +
                          num(p.ssmBytes / kGiB, 2) + "GB");
            out.push_back("  KV Cache is allocated. #tokens: " + std::to_string(p.maxTotalTokens) + ", ...");
            out.push_back(logged);
        } else {
            out.push_back("The model records only its state's bf16 total, not SGLang's conv / SSM split, so "
                          "max_mamba_cache_size is known only as " + grouped(p.mambaCacheSize) + " to " +
                          grouped(p.mambaCacheSizeHigh) + " (SSM state all or none of it).");
            if (p.maxTotalTokens == p.maxTotalTokensHigh) {
                out.push_back("max_total_num_tokens is the same either way; it logs:");
                out.push_back(logged);
            } else {
                out.push_back("max_total_num_tokens: " + grouped(p.maxTotalTokens) + " to " + grouped(p.maxTotalTokensHigh) +
                              ".");
            }
        }
        // kv_cache_configurator.py resolve_max_num_reqs / _calculate_mamba_ratio:
        // 3 state slots a request with the radix cache on, plus 1-2 for the extra
        // buffer of mamba_radix_cache_strategy "auto" (not resolved here).
        const long long cap = p.mambaCacheSizeHigh / 3;
        out.push_back("SGLang caps max_running_requests at max_mamba_cache_size // (3 state slots a request with the radix "
                      "cache, + 1 or 2 with its extra buffer): at most " + grouped(cap) +
                      (cap < batch ? ", below --max-running-requests " + std::to_string(batch) : std::string()) + ".");
    } else {
        // The line SGLang headers have carried since launch began (uniform pool).
        out.push_back("At start SGLang sizes its KV pool as --mem-fraction-static x GPU memory - (weights + CUDA context) and "
                      "logs it as max_total_num_tokens: predicted " + grouped(p.maxTotalTokens) + " tokens (" + pool +
                      " / " + num(p.cellBytes / 1024, 1) + " KiB per token per GPU); "
                      "activations and CUDA graphs must fit in the other " + detail::pct(1 - p.memoryFraction) + ".");
        if (p.swaLayers > 0)
            out.push_back("Its " + std::to_string(p.swaLayers) + " windowed layers (" + grouped(p.window) +
                          " tokens) keep every token too: SGLang's hybrid SWA memory pool is only for the architectures "
                          "model_config.py is_hybrid_swa_model lists (gpt-oss, Llama 4, ...), and it is switched off for "
                          "Gemma 2/3 (arg_groups/overrides.py _gemma2_gemma3_overrides).");
        return out;
    }
    out.push_back("Counts are for page size 1, SGLang's default with these models' Hopper attention backends; a backend "
                  "with larger pages (trtllm_mha, its pick for gpt-oss on Blackwell) rounds them down to whole pages. "
                  "Activations and CUDA graphs must fit in the other " + detail::pct(1 - p.memoryFraction) + ".");
    return out;
}

} // namespace gp
