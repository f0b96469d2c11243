// Serving under load (runtime "serving"): see servingload.h.
//
// One engine step runs every running sequence's next decode token plus up to
// chunk - decoding prompt tokens of the prompts waiting (vLLM's scheduler:
// decodes first, then prefill chunks, FCFS). Two mechanisms set the latency:
//
//  - Prefill queue. A new prompt waits for the prompts ahead of it, then takes
//    ceil(P / (chunk - decoding)) steps: its service time S. With throughput X
//    the prefill server is busy rho = X S of the time.
//  - Decode stretch. Decoding sequences advance one token per step, and a step
//    that carries prompt tokens lasts longer: the time per output token is the
//    decode step / (1 - U_p), U_p = X x P x (time per prompt token in a step).
//    A request decodes for D = output_tokens x that.
//
// A request arriving mid-step first waits for that step to end (half a step on
// average). The p99 of the queueing wait uses the heavy-traffic tail of an
// M/G/1 queue: P(W > t) = rho exp(-rho t / W).
#include "servingload.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

struct StepView {
    double decodeStep = 0;   // a step with only the decodes
    double prefillS = 0;     // one prompt's chunked prefill beside the decodes (S)
    double perPromptToken = 0; // marginal seconds per prompt token in a step
};

StepView stepsAt(const EngineShape& e, double decoding)
{
    StepView v;
    v.decodeStep = decoding > 0 ? e.step(0, decoding) : 0;
    const double budget = std::max(1.0, e.chunkTokens - decoding);
    const double prompt = std::max(1.0, e.promptTokens);
    const double steps = std::ceil(prompt / budget);
    const double perStep = prompt / steps;
    const double full = e.step(perStep, decoding);
    v.prefillS = steps * full;
    v.perPromptToken = std::max(0.0, full - v.decodeStep) / perStep;
    return v;
}

/// p99 of the waiting time of a queue busy rho of the time with mean wait w.
double waitP99(double w, double rho)
{
    if (w <= 0 || rho <= 0)
        return 0;
    rho = std::min(rho, 0.999);
    return 100 * rho > 1 ? w / rho * std::log(100 * rho) : 0;
}

} // namespace

namespace {

/// The decode phase at throughput x: the decoding population (Little's law,
/// decoding = x D) and D, solved together (the step grows with the population),
/// the population capped at `cap`. ok = false when the prompts alone would take
/// the whole engine (U_p >= 1).
struct DecodeState {
    StepView v;
    double decoding = 0;
    double d = 0;   // seconds a request decodes
    double up = 0;  // share of engine time on prompt tokens
    bool ok = true;
};

DecodeState decodeAt(const EngineShape& e, double x, double cap, double start = 0)
{
    DecodeState s;
    const double out = std::max(1.0, e.outputTokens);
    double decoding = std::min(cap, start);
    for (int it = 0; it < 200; ++it) {
        s.v = stepsAt(e, decoding);
        s.up = x * e.promptTokens * s.v.perPromptToken;
        if (s.up >= 0.999) {
            s.ok = false;
            s.up = 0.999;
        }
        const double step = decoding >= 1 ? s.v.decodeStep : e.step(0, 1);
        s.d = out * step / (1 - s.up);
        const double next = std::min(cap, x * s.d);
        // x D grows with the population it sets: the sequence rises to the fixed point.
        if (std::fabs(next - decoding) <= 1e-7 * std::max(1.0, next)) {
            decoding = next;
            break;
        }
        decoding = next;
    }
    s.decoding = decoding;
    return s;
}

/// Exact MVA of the closed network: a queueing station (prefill, service S)
/// and a delay station (decode, D) with population n. Returns X; r1 = the
/// prefill station's residence time.
double mva(double S, double D, int n, double& r1)
{
    double q = 0, x = 0;
    r1 = S;
    for (int k = 1; k <= n; ++k) {
        r1 = S * (1 + q);
        x = k / (r1 + D);
        q = x * r1;
    }
    return x;
}

} // namespace

LoadResult closedLoop(const EngineShape& e, int users)
{
    LoadResult r;
    const int n = std::max(1, users);
    const int inEngine = e.admitted >= 1 ? std::min(n, static_cast<int>(e.admitted)) : n;
    // The throughput X is where the network's answer, given the decode phase at
    // X, equals X (higher X: more prompt tokens per step, slower decode, lower
    // answer): bisection.
    double lo = 0;
    double hi = inEngine / std::max(1e-12, stepsAt(e, 0).prefillS) + inEngine / std::max(1e-12, e.step(0, 1));
    double warm = 0; // the population at lo: a lower bound of the one at any higher throughput
    for (int it = 0; it < 80 && hi - lo > 1e-7 * hi; ++it) {
        const double mid = 0.5 * (lo + hi);
        const DecodeState s = decodeAt(e, mid, inEngine, warm);
        double r1 = 0;
        const double answer = s.ok ? mva(s.v.prefillS, s.d, inEngine, r1) : 0;
        if (answer > mid) {
            lo = mid;
            warm = s.decoding;
        } else {
            hi = mid;
        }
    }
    const double x = lo;
    const DecodeState s = decodeAt(e, x, inEngine, warm);
    double r1 = 0;
    mva(s.v.prefillS, s.d, inEngine, r1);
    const double out = std::max(1.0, e.outputTokens);
    r.requestsPerS = x;
    r.decoding = s.decoding;
    r.prefillS = s.v.prefillS;
    r.utilization = s.up;
    r.tpotS = s.d / out;
    const double stepMean = (s.decoding >= 1 ? s.v.decodeStep : e.step(0, 1)) / (1 - s.up);
    const double queueWait = std::max(0.0, r1 - s.v.prefillS);
    // Beyond the admitted sequences the rest wait for KV blocks: each user's
    // cycle is users / X, of which D decoding and r1 in the prefill queue.
    r.kvWaitS = n > inEngine && x > 0 ? std::max(0.0, n / x - r1 - s.d) : 0;
    r.ttftS = 0.5 * stepMean + r.kvWaitS + r1;
    const double rho = std::min(0.999, x * s.v.prefillS);
    r.ttftP99S = std::max(r.ttftS, stepMean + r.kvWaitS + s.v.prefillS + waitP99(queueWait, rho));
    return r;
}

LoadResult openLoop(const EngineShape& e, double rate)
{
    LoadResult r;
    const double out = std::max(1.0, e.outputTokens);
    const double cap = e.admitted >= 1 ? e.admitted : 1e9;
    const DecodeState s = decodeAt(e, rate, cap);
    const double rho = rate * s.v.prefillS;
    r.saturated = !s.ok || rho >= 1 || s.decoding + rho >= cap;
    if (r.saturated) {
        // No steady state: report the engine full (closed loop at its admitted
        // population); the caller says the rate is above what it serves.
        LoadResult full = closedLoop(e, e.admitted >= 1 ? static_cast<int>(e.admitted) : 4096);
        full.saturated = true;
        return full;
    }
    r.requestsPerS = rate;
    r.decoding = s.decoding;
    r.prefillS = s.v.prefillS;
    r.utilization = s.up;
    r.tpotS = s.d / out;
    const double stepMean = (s.decoding >= 1 ? s.v.decodeStep : e.step(0, 1)) / (1 - s.up);
    const double wait = rho * s.v.prefillS / (2 * (1 - rho)); // M/D/1
    r.ttftS = 0.5 * stepMean + wait + s.v.prefillS;
    r.ttftP99S = std::max(r.ttftS, stepMean + s.v.prefillS + waitP99(wait, rho));
    return r;
}

} // namespace gp::detail
