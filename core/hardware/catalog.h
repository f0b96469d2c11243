#pragma once
#include "core/base/precision.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gp {

/// The seeds' market tiers, used for filtering and for the "right-size" advice.
enum class Tier { Consumer, Workstation, InferenceDatacenter, TrainingDatacenter, Frontier };
std::string_view tierName(Tier t);      // "consumer", "workstation", ...
std::string_view tierLabel(Tier t);     // "Consumer", "Inference data-center", ...

/// Hourly rental price per GPU in USD (per chip for TPUs), with provenance.
struct HourlyPrice {
    double low = 0;
    double typical = 0;    // 0 = not rentable / unknown
    double high = 0;
    std::optional<double> spot;
    std::string providers; // who charges that
    std::string seen;      // when the prices were seen, e.g. "2025-08..2026-06"
};

/// One accelerator with its dense datasheet peaks (no 2:4 sparsity).
struct Gpu {
    std::string id;
    std::string vendor;
    std::string name;
    std::string category;       // datacenter | consumer | workstation | tpu (as in the reference)
    std::string architecture;
    std::string formFactor;
    double memoryGb = 0;        // as marketed (GB = 1e9 bytes)
    std::string memoryType;
    double bandwidthGbps = 0;   // GB/s
    // Dense peak throughput in TFLOP/s (TOPS for int8); 0 = not supported.
    double fp32Tflops = 0;
    double tf32Tflops = 0;
    double fp16Tflops = 0;
    double bf16Tflops = 0;
    double fp8Tflops = 0;
    double int8Tops = 0;
    double fp4Tflops = 0;
    double tdpW = 0;
    std::string interconnect;   // "none" = PCIe only
    double interconnectGbps = 0;// GPU-to-GPU scale-up, bidirectional GB/s; 0 = PCIe only
    int pcieGen = 0;
    int migMaxInstances = 0;    // 0 = no MIG
    int smCount = 0;            // streaming multiprocessors of the whole GPU; 0 = not in the catalog
    /// SMs of each MIG GPU-instance profile ("1g" ... "7g") as `nvidia-smi mig -lgip`
    /// lists them; empty = not in the catalog (the MIG guide's fraction k/7 or k/4 applies).
    std::vector<std::pair<std::string, int>> migSms;
    std::string migSmsSource;   // where smCount and migSms come from
    bool ecc = false;
    int year = 0;
    HourlyPrice pricePerHour;
    double purchaseUsd = 0;     // 0 = unknown / not sold
    std::string purchaseNote;
    std::string confidence;     // high | medium
    std::vector<std::string> uncertainFields;
    std::vector<std::string> sources;
    std::string notes;
    Tier tier = Tier::TrainingDatacenter;
    bool userDefined = false;   // added or changed by the user overlay

    /// Memory in bytes as the datasheet gives it (GB, not GiB).
    double memoryBytes() const;
    /// Dense peak for a matmul format, FLOP/s; 0 when the hardware lacks it.
    double peakFlops(DType t) const;
    bool supports(DType t) const { return peakFlops(t) > 0; }
    /// PCIe bandwidth per direction in GB/s for the card's generation.
    double pcieGbps() const;
    /// True for TPUs and other chips PyTorch/CUDA measurements do not describe.
    bool isTpu() const { return category == "tpu"; }
};

/// The accelerator catalog: the built-in reference plus an optional user overlay.
class Catalog {
public:
    /// The catalog compiled into the program (resources/catalog/gpu-catalog.json).
    static const Catalog& builtin();
    /// Parses a catalog JSON array; throws InputError naming the entry and key.
    static Catalog fromJsonText(std::string_view text, std::string_view origin);
    /// Entries taken as they are, unchecked: for the built-in catalog, which is
    /// read from its JSON at build time (gp_catalog_table, catalogtable.cpp)
    /// through fromJsonText and compiled in, so no program parses it at start.
    static Catalog fromCheckedEntries(std::vector<Gpu> gpus);

    /// Adds or overrides entries from a user overlay (a JSON array of partial or
    /// whole entries keyed by "id"; {"id": ..., "remove": true} hides one).
    /// Throws InputError; the catalog is unchanged on error.
    void applyOverlayText(std::string_view text, std::string_view origin);

    const std::vector<Gpu>& gpus() const { return m_gpus; }
    const Gpu* find(std::string_view id) const;
    /// Ids sorted by edit distance to a wrong one, for "did you mean".
    std::string closestId(std::string_view id) const;
    /// `unknown GPU id "x" (did you mean "y"?)`; ids over 64 bytes are quoted
    /// shortened, with their length, and get no suggestion.
    std::string unknownIdMessage(std::string_view id) const;

private:
    std::vector<Gpu> m_gpus;
};

} // namespace gp
