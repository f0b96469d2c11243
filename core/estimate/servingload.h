#pragma once
// Internal (core only): time to first token and time per output token of a
// serving engine (continuous batching, chunked prefill, paged KV) under load.
#include <functional>
#include <string>

namespace gp::detail {

/// The engine as the load model sees it.
struct EngineShape {
    double promptTokens = 1024;
    double outputTokens = 256;
    double chunkTokens = 8192;  // tokens one engine step may take (max_num_batched_tokens)
    double admitted = 0;        // sequences whose KV fits the engine's share of memory at once (0: unbounded)
    bool wholePrompts = false;  // chunked prefill off: a prompt enters one step whole (the budget always holds it)
    /// Seconds of one engine step carrying `prefillTokens` prompt tokens (of
    /// one or more prompts, causal attention over a chunk of `chunkOf` prompt
    /// tokens) beside one decode token for each of `decoding` running sequences.
    std::function<double(double prefillTokens, double decoding)> step;
    /// Seconds `prefillTokens` prompt tokens add to a step of `decoding` decodes:
    /// their compute (the pass over all the step's tokens less the pass over the
    /// decodes alone), continuous in both, even where the step is memory-bound.
    std::function<double(double prefillTokens, double decoding)> promptCost;
};

/// What the load gives.
struct LoadResult {
    double ttftS = 0;        // mean time to first token (queueing, waiting for KV blocks and the prefill)
    double ttftP99S = 0;     // its 99th percentile
    double tpotS = 0;        // mean time per output token while decoding (steps stretched by the prefills riding in them)
    double requestsPerS = 0; // throughput
    double decoding = 0;     // mean sequences decoding at once
    double prefillS = 0;     // one prompt's own prefill time (its chunked steps), no queueing
    double utilization = 0;  // share of engine time spent on prefill tokens
    double kvWaitS = 0;      // mean wait for KV blocks (closed loop beyond the admitted sequences)
    bool saturated = false;  // open loop: the rate is above what the engine serves (the queue grows without bound)
};

/// Closed loop: `users` clients, each sending its next request when the last
/// one ends (no think time). Mean-value analysis of a closed network of the
/// prefill queue (FCFS, service = one prompt's chunked steps) and the decode
/// phase (a delay of output_tokens steps), the engine population capped at the
/// admitted sequences (the others wait for KV blocks: a flow-equivalent server).
LoadResult closedLoop(const EngineShape& e, int users);

/// Open loop: requests arriving at `rate` per second (Poisson). The prefill
/// queue is M/D/1 (mean wait rho S / (2 (1 - rho))); the decoding population
/// follows from Little's law.
LoadResult openLoop(const EngineShape& e, double rate);

} // namespace gp::detail
