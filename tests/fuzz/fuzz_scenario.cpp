// libFuzzer target: scenario documents.
//
//   parseScenario(text) -> (if it parses) estimate on 3 fixed GPUs with the
//   explanations on, the JSON/CSV/table outputs, and the scenarioToJson round
//   trip: the serialized scenario must parse again and serialize to the same text.
//
// gp::InputError is the only allowed failure; any other exception, a sanitizer
// report or a failed round trip is a bug.
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/scenario/scenario.h"

#include "fuzz_common.h"

#include <cmath>
#include <optional>
#include <string>

namespace {

constexpr const char* kTarget = "fuzz_scenario";

void checkNumber(double v, const std::string& what)
{
    if (!std::isfinite(v) || v < 0)
        gpfuzz::fail(kTarget, what + " = " + std::to_string(v) + " (must be finite and >= 0)");
}

void checkNumber(const std::optional<double>& v, const std::string& what)
{
    if (v)
        checkNumber(*v, what);
}

/// Every number of an estimate is finite and >= 0.
void checkEstimate(const gp::GpuEstimate& r)
{
    const std::string g = r.gpuId + ": ";
    checkNumber(r.capacityBytes, g + "capacityBytes");
    checkNumber(r.memory.weights, g + "memory.weights");
    checkNumber(r.memory.gradients, g + "memory.gradients");
    checkNumber(r.memory.optimizer, g + "memory.optimizer");
    checkNumber(r.memory.activations, g + "memory.activations");
    checkNumber(r.memory.kvCache, g + "memory.kvCache");
    checkNumber(r.memory.overhead, g + "memory.overhead");
    checkNumber(r.usdPerHour, g + "usdPerHour");
    checkNumber(r.uncertainty.memory, g + "uncertainty.memory");
    checkNumber(r.uncertainty.throughput, g + "uncertainty.throughput");
    if (r.fits != (r.memory.total() <= r.capacityBytes))
        gpfuzz::fail(kTarget, g + "fits disagrees with total <= capacity");
    if (const auto& t = r.training) {
        checkNumber(t->tokensPerS, g + "training.tokensPerS");
        checkNumber(t->samplesPerS, g + "training.samplesPerS");
        checkNumber(t->stepMs, g + "training.stepMs");
        checkNumber(t->mfu, g + "training.mfu");
        checkNumber(t->hours, g + "training.hours");
        checkNumber(t->costUsd, g + "training.costUsd");
    }
    if (const auto& i = r.inference) {
        checkNumber(i->ttftMs, g + "inference.ttftMs");
        checkNumber(i->tpotMs, g + "inference.tpotMs");
        checkNumber(i->tokensPerS, g + "inference.tokensPerS");
        checkNumber(i->usdPerMillionTokens, g + "inference.usdPerMillionTokens");
        checkNumber(i->samplesPerS, g + "inference.samplesPerS");
        checkNumber(i->latencyMs, g + "inference.latencyMs");
    }
    for (const auto& t : r.terms)
        if (!std::isfinite(t.value))
            gpfuzz::fail(kTarget, g + "term " + t.key + " = " + std::to_string(t.value));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = gpfuzz::asText(data, size);
    gp::ParsedScenario parsed;
    bool ok = false;
    gpfuzz::expectOnlyInputError(kTarget, "parseScenario", [&] {
        parsed = gp::parseScenario(text);
        ok = true;
    });
    if (!ok)
        return 0;

    gp::Scenario s = parsed.scenario;
    // Three fixed GPUs keep an iteration fast and still cover the capability
    // fallbacks (T4: no BF16/FP8), Hopper (FP8) and a TPU (no PCIe gen, other vendor).
    s.hardware.gpus = {"nvidia-t4", "nvidia-h100-sxm", "google-tpu-v5e"};
    gpfuzz::expectOnlyInputError(kTarget, "estimate", [&] {
        const gp::Estimate e = gp::estimate(s, gp::Catalog::builtin(), gp::EstimateOptions{true});
        if (e.results.size() != 3)
            gpfuzz::fail(kTarget, "estimate returned " + std::to_string(e.results.size()) + " results for 3 GPUs");
        for (const auto& r : e.results)
            checkEstimate(r);
        (void)gp::estimateToJson(e);
        (void)gp::estimateToCsv(e);
        (void)gp::estimateToTable(e);
    });

    // Round trip the scenario as parsed (with its own GPU list).
    std::string once;
    gpfuzz::expectOnlyInputError(kTarget, "scenarioToJson", [&] { once = gp::scenarioToJson(parsed.scenario); });
    if (once.empty())
        gpfuzz::fail(kTarget, "scenarioToJson failed on a scenario parseScenario accepted");
    gp::ParsedScenario again;
    try {
        again = gp::parseScenario(once);
    } catch (const gp::InputError& e) {
        gpfuzz::fail(kTarget, "scenarioToJson output does not parse again:\n" + std::string(e.what()) + "\n--- output:\n" +
                                  once);
    } catch (const std::exception& e) {
        gpfuzz::fail(kTarget, std::string("re-parsing scenarioToJson output threw ") + e.what());
    }
    const std::string twice = gp::scenarioToJson(again.scenario);
    if (twice != once)
        gpfuzz::fail(kTarget, "scenarioToJson is not stable over a round trip:\n--- first:\n" + once +
                                  "--- second:\n" + twice);
    return 0;
}
