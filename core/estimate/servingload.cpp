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
#include "core/estimate/servingload.h"

#include <algorithm>
#include <cmath>

namespace gp::detail {

namespace {

struct StepView {
    double decodeStep = 0;   // a step with only the decodes
    double prefillS = 0;     // one prompt's chunked prefill beside the decodes: its own latency (S)
    double shareS = 0;       // engine time a prompt takes when prompts queue: its share of full-budget steps,
                             // P / (chunk - decoding) x a full step (short prompts share one step)
    double perPromptToken = 0; // marginal seconds per prompt token in a step
};

StepView stepsAt(const EngineShape& e, double decoding)
{
    StepView v;
    v.decodeStep = decoding > 0 ? e.step(0, decoding) : 0;
    const double budget = std::max(1.0, e.chunkTokens - decoding);
    const double prompt = std::max(1.0, e.promptTokens);
    const double steps = e.wholePrompts ? 1.0 : std::ceil(prompt / budget);
    const double perStep = prompt / steps;
    const double full = e.step(perStep, decoding);
    v.prefillS = steps * full;
    v.shareS = std::min(v.prefillS, prompt / budget * (prompt >= budget ? full : e.step(budget, decoding)));
    // The marginal cost of prompt tokens in a step that runs anyway: their
    // compute, continuous in the population (a memory-bound step does not hide
    // it for free: the pass over all the step's tokens grows with them).
    v.perPromptToken = std::max(0.0, e.promptCost ? e.promptCost(perStep, decoding) : full - v.decodeStep) / perStep;
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

/// The engine with `decoding` sequences decoding on average: its steps, and the
/// throughput x that population implies (Little's law, decoding = x D, with
/// D = output x decode step / (1 - U_p) and U_p = x x P x the prompt-token cost
/// solved for x: x = decoding / (output x step + decoding x P x cost)).
struct DecodeState {
    StepView v;
    double decoding = 0;
    double x = 0;   // requests per second
    double d = 0;   // seconds a request decodes
    double up = 0;  // share of engine time on prompt tokens
};

DecodeState stateAt(const EngineShape& e, double decoding)
{
    DecodeState s;
    const double out = std::max(1.0, e.outputTokens);
    s.decoding = decoding;
    s.v = stepsAt(e, decoding);
    const double step = decoding >= 1 ? s.v.decodeStep : e.step(0, 1);
    s.x = decoding / (out * step + decoding * e.promptTokens * s.v.perPromptToken);
    s.up = std::min(0.999, s.x * e.promptTokens * s.v.perPromptToken);
    s.d = out * step / (1 - s.up);
    return s;
}

/// MVA of the closed network: a queueing station (prefill: a prompt's own
/// latency S, and each prompt waiting ahead of it delays it by its share of the
/// engine, `share`: prompts that fit one step together are prefilled together)
/// and a delay station (decode, D) with population n. Returns X; r1 = the
/// prefill station's residence time. Schweitzer's approximation (an arriving
/// request sees (n - 1) / n of the mean queue) has a closed form here:
/// R = S + share (n - 1) R / (R + D), a quadratic in R; exact at n = 1 (R = S)
/// and within a few percent of exact MVA beyond, in O(1) instead of O(n).
double mva(double S, double share, double D, int n, double& r1)
{
    const double b = D - S - share * (n - 1);
    r1 = 0.5 * (-b + std::sqrt(b * b + 4 * S * D));
    return n / (r1 + D);
}

} // namespace

LoadResult closedLoop(const EngineShape& e, int users)
{
    LoadResult r;
    const int n = std::max(1, users);
    const int inEngine = e.admitted >= 1 ? std::min(n, static_cast<int>(e.admitted)) : n;
    // The decoding population is where the throughput it implies (Little) meets
    // the network's answer at its step times: the first rises with it, the
    // second falls (slower steps): bisection on the population.
    auto gap = [&](double decoding, DecodeState& s, double& r1) {
        s = stateAt(e, decoding);
        return s.x - mva(s.v.prefillS, s.v.shareS, s.d, inEngine, r1);
    };
    DecodeState s;
    double r1 = 0;
    double lo = 0, hi = inEngine;
    if (gap(hi, s, r1) < 0) {
        lo = hi; // every admitted sequence decodes (a prompt's wait is negligible)
    } else {
        for (int it = 0; it < 60 && hi - lo > 1e-4 * std::max(1.0, hi); ++it) {
            const double mid = 0.5 * (lo + hi);
            (gap(mid, s, r1) < 0 ? lo : hi) = mid;
        }
        // The root between the last bracket's ends (linear): continuous in the
        // engine's constants, where a bisection's end moves in steps of its tolerance.
        const double gLo = gap(std::max(lo, 1e-6), s, r1);
        const double gHi = gap(hi, s, r1);
        if (gLo < 0 && gHi >= 0)
            lo += (hi - lo) * gLo / (gLo - gHi);
    }
    gap(std::max(lo, 1e-6), s, r1);
    const double x = mva(s.v.prefillS, s.v.shareS, s.d, inEngine, r1);
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
    const double rho = std::min(0.999, x * s.v.shareS);
    r.ttftP99S = std::max(r.ttftS, stepMean + r.kvWaitS + s.v.prefillS + waitP99(queueWait, rho));
    return r;
}

LoadResult openLoop(const EngineShape& e, double rate)
{
    LoadResult r;
    const double cap = e.admitted >= 1 ? e.admitted : 1e6;
    // The population whose throughput (Little) is the rate: bisection.
    double lo = 0, hi = cap;
    DecodeState s = stateAt(e, hi);
    bool saturated = s.x < rate;
    if (!saturated) {
        for (int it = 0; it < 60 && hi - lo > 1e-4 * std::max(1.0, hi); ++it) {
            const double mid = 0.5 * (lo + hi);
            (stateAt(e, mid).x < rate ? lo : hi) = mid;
        }
        s = stateAt(e, std::max(hi, 1e-6));
    }
    const double up = std::min(0.999, rate * e.promptTokens * s.v.perPromptToken);
    const double rho = rate * s.v.shareS;
    saturated = saturated || rho >= 1 || up >= 0.95 || s.decoding + rho >= cap;
    if (saturated) {
        // No steady state: report the engine full (closed loop at its admitted
        // population); the caller says the rate is above what it serves.
        LoadResult full = closedLoop(e, e.admitted >= 1 ? static_cast<int>(e.admitted) : 4096);
        full.saturated = true;
        return full;
    }
    r.saturated = false;
    r.requestsPerS = rate;
    r.decoding = s.decoding;
    r.prefillS = s.v.prefillS;
    r.utilization = up;
    const double step = s.decoding >= 1 ? s.v.decodeStep : e.step(0, 1);
    r.tpotS = step / (1 - up);
    const double stepMean = step / (1 - up);
    const double wait = rho * s.v.shareS / (2 * (1 - rho)); // M/D/1 on the prompts' share of the engine
    r.ttftS = 0.5 * stepMean + wait + s.v.prefillS;
    r.ttftP99S = std::max(r.ttftS, stepMean + s.v.prefillS + waitP99(wait, rho));
    return r;
}

} // namespace gp::detail
