// Serving capacity of one replica (the planner's inference search): the batch
// grows while the KV cache fits and the latency targets hold.
#include "core/plan/planserving.h"

#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

namespace gp::detail {

bool meetsLatency(const GpuEstimate& e, const InferenceTargets& t, double confidence)
{
    if (!e.inference)
        return false;
    const auto& r = *e.inference;
    const bool ttftOk = !t.ttftMs || (r.ttftMs && *r.ttftMs <= *t.ttftMs) || (r.latencyMs && *r.latencyMs <= *t.ttftMs);
    const bool tpotOk = !t.tpotMs || (r.tpotMs && *r.tpotMs <= *t.tpotMs);
    const bool p99Ok = !t.ttftP99Ms || !r.ttftP99Ms || *r.ttftP99Ms <= *t.ttftP99Ms;
    const bool sure = confidence <= 0 || e.confidence.fits * e.confidence.latency >= confidence;
    return ttftOk && tpotOk && p99Ok && sure;
}

std::string limitOf(const GpuEstimate& e, const InferenceTargets& t, bool languageModel, double confidence)
{
    if (!e.fits || !e.inference)
        return languageModel ? "kv_memory" : "memory";
    // Met at the point but not surely: the less certain of memory and latency binds.
    if (confidence > 0 && meetsLatency(e, t) && e.confidence.fits < e.confidence.latency)
        return languageModel ? "kv_memory" : "memory";
    const auto& r = *e.inference;
    // Both targets missed: the one overshot by the larger share binds.
    const double ttft = r.ttftMs ? *r.ttftMs : r.latencyMs.value_or(0);
    const double overTtft = t.ttftMs && *t.ttftMs > 0 ? ttft / *t.ttftMs : 0;
    const double overTpot = t.tpotMs && *t.tpotMs > 0 && r.tpotMs ? *r.tpotMs / *t.tpotMs : 0;
    const double overP99 = t.ttftP99Ms && *t.ttftP99Ms > 0 && r.ttftP99Ms ? *r.ttftP99Ms / *t.ttftP99Ms : 0;
    if (overP99 > overTtft && overP99 > overTpot)
        return "ttft";
    return overTtft >= overTpot ? "ttft" : "tpot";
}

ReplicaCapacity replicaCapacity(const std::function<GpuEstimate(int)>& eval,
                                const std::function<void(const GpuEstimate&)>& onMiss, const InferenceTargets& t,
                                bool languageModel, int maxBatch, double confidence)
{
    ReplicaCapacity cap;
    auto ok = [&](int batch, std::string* limit) {
        const GpuEstimate e = eval(batch);
        // A serving engine holds only the sequences its KV blocks admit; the
        // others would wait: a replica's users are what it admits.
        if (e.inference && e.inference->admitted && batch > *e.inference->admitted) {
            onMiss(e);
            if (limit)
                *limit = "kv_memory";
            return false;
        }
        if (e.fits && meetsLatency(e, t, confidence))
            return true;
        onMiss(e);
        if (limit)
            *limit = limitOf(e, t, languageModel, confidence);
        return false;
    };
    int good = 0;
    int bad = 0;
    std::string limit;
    for (int batch = 1; batch <= maxBatch; batch *= 2) {
        if (!ok(batch, &limit)) {
            bad = batch;
            break;
        }
        good = batch;
    }
    if (good == 0)
        return cap; // not even one sequence
    if (bad == 0) {
        // Nothing stopped the search: the replica holds more than it searched.
        cap.users = good;
        cap.limit = "compute";
        return cap;
    }
    while (bad - good > 1) {
        const int mid = good + (bad - good) / 2;
        std::string midLimit;
        if (ok(mid, &midLimit)) {
            good = mid;
        } else {
            bad = mid;
            limit = midLimit;
        }
    }
    cap.users = good;
    cap.limit = limit;
    return cap;
}

std::string limitText(const std::string& limit)
{
    if (limit == "kv_memory")
        return "KV memory";
    if (limit == "memory")
        return "memory";
    if (limit == "ttft")
        return "TTFT";
    if (limit == "tpot")
        return "TPOT";
    if (limit == "rate")
        return "the request rate sets the replicas";
    if (limit == "compute")
        return "the batch searched (4096)";
    return limit;
}

} // namespace gp::detail
