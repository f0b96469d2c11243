#include "listings.h"

#include "core/hardware/catalog.h"
#include "core/estimate/estimate.h"
#include "core/model/presets.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdio>
#include <sstream>

namespace gp::cli {

std::string termsJson(const Estimate& est)
{
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(estimateToJson(est));
    for (std::size_t i = 0; i < est.results.size(); ++i) {
        auto terms = nlohmann::ordered_json::array();
        for (const auto& t : est.results[i].terms)
            terms.push_back({{"key", t.key}, {"label", t.label}, {"value", t.value}, {"unit", t.unit},
                             {"formula", t.formula}});
        doc["results"][i]["terms"] = terms;
    }
    return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string gpusTable(const Catalog& cat)
{
    std::ostringstream out;
    char line[512];
    std::snprintf(line, sizeof line, "%-30s %-22s %7s %8s %8s %8s %6s %8s %9s %-16s\n", "id", "tier", "mem GB", "BW GB/s",
                  "BF16 TF", "FP8 TF", "TDP W", "$/h", "buy $", "prices seen");
    out << line;
    for (const auto& g : cat.gpus()) {
        // printf("%.<decimals>f") by std::to_chars, which prints what printf
        // prints in the C locale ([charconv.to.chars]) at a fraction of its cost
        // (issue #19: this table is most of `gpus`' own time).
        auto n = [](double v, int decimals) {
            char b[32];
            if (v <= 0)
                return std::string("-");
            const auto r = std::to_chars(b, b + sizeof b - 1, v, std::chars_format::fixed, decimals);
            if (r.ec != std::errc()) { // over 30 digits: what snprintf keeps of it
                std::snprintf(b, sizeof b, "%.*f", decimals, v);
                return std::string(b);
            }
            return std::string(b, r.ptr);
        };
        std::snprintf(line, sizeof line, "%-30s %-22s %7s %8s %8s %8s %6s %8s %9s %-16s%s\n", g.id.c_str(),
                      std::string(tierName(g.tier)).c_str(), n(g.memoryGb, 0).c_str(),
                      n(g.bandwidthGbps, 0).c_str(), n(g.bf16Tflops, 1).c_str(),
                      n(g.fp8Tflops, 1).c_str(), n(g.tdpW, 0).c_str(),
                      n(g.pricePerHour.typical, 2).c_str(), n(g.purchaseUsd, 0).c_str(),
                      g.pricePerHour.seen.c_str(), g.userDefined ? "  (user)" : "");
        out << line;
    }
    return out.str();
}

std::string gpusJson(const Catalog& cat)
{
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& g : cat.gpus()) {
        nlohmann::ordered_json j;
        j["id"] = g.id;
        j["vendor"] = g.vendor;
        j["name"] = g.name;
        j["tier"] = tierName(g.tier);
        j["architecture"] = g.architecture;
        j["memory_gb"] = g.memoryGb;
        j["memory_bandwidth_gbps"] = g.bandwidthGbps;
        auto peak = [](double v) { return v > 0 ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
        j["fp32_tflops"] = peak(g.fp32Tflops);
        j["tf32_tflops"] = peak(g.tf32Tflops);
        j["fp16_tflops"] = peak(g.fp16Tflops);
        j["bf16_tflops"] = peak(g.bf16Tflops);
        j["fp8_tflops"] = peak(g.fp8Tflops);
        j["int8_tops"] = peak(g.int8Tops);
        j["fp4_tflops"] = peak(g.fp4Tflops);
        j["tdp_w"] = g.tdpW;
        j["interconnect"] = g.interconnect;
        j["interconnect_gbps"] = peak(g.interconnectGbps);
        j["price_hour_usd"] = {{"low", peak(g.pricePerHour.low)},
                               {"typical", peak(g.pricePerHour.typical)},
                               {"high", peak(g.pricePerHour.high)},
                               {"spot", g.pricePerHour.spot ? nlohmann::ordered_json(*g.pricePerHour.spot)
                                                            : nlohmann::ordered_json(nullptr)},
                               {"providers", g.pricePerHour.providers},
                               {"seen", g.pricePerHour.seen}};
        j["purchase_usd"] = peak(g.purchaseUsd);
        j["sources"] = g.sources;
        j["user_defined"] = g.userDefined;
        arr.push_back(j);
    }
    return arr.dump(2) + "\n";
}

std::string presetsTable()
{
    std::ostringstream out;
    char line[256];
    std::snprintf(line, sizeof line, "%-18s %-26s %-8s %10s %10s %6s %7s %6s %6s %8s\n", "id", "name", "family",
                  "params", "active", "layers", "hidden", "heads", "kv", "vocab");
    out << line;
    for (const auto& m : modelPresets()) {
        const char* fam = m.family == ModelFamily::Decoder ? "decoder" : m.family == ModelFamily::Encoder ? "encoder" : "vision";
        const double total = m.isLanguageModel() ? m.totalParams() : m.vision.params;
        const double active = m.isLanguageModel() ? m.modelCardActiveParams() : m.vision.params;
        std::snprintf(line, sizeof line, "%-18s %-26s %-8s %9.3gB %9.3gB %6d %7d %6d %6d %8lld\n", m.id.c_str(),
                      m.name.substr(0, 26).c_str(), fam, total / 1e9, active / 1e9, m.layers, m.hidden, m.heads,
                      m.kvHeads, static_cast<long long>(m.vocab));
        out << line;
    }
    return out.str();
}

std::string presetsJson()
{
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& m : modelPresets()) {
        nlohmann::ordered_json j;
        j["id"] = m.id;
        j["name"] = m.name;
        j["family"] = m.family == ModelFamily::Decoder ? "decoder" : m.family == ModelFamily::Encoder ? "encoder" : "vision";
        j["params"] = m.isLanguageModel() ? m.totalParams() : m.vision.params;
        j["active_params"] = m.isLanguageModel() ? m.modelCardActiveParams() : m.vision.params;
        if (m.isLanguageModel()) {
            j["layers"] = m.layers;
            j["hidden"] = m.hidden;
            j["heads"] = m.heads;
            j["kv_heads"] = m.kvHeads;
            j["head_dim"] = m.headDim;
            j["ffn_hidden"] = m.ffnHidden;
            j["vocab"] = m.vocab;
            if (m.moe.enabled())
                j["moe"] = {{"experts", m.moe.experts}, {"active", m.moe.active}, {"shared", m.moe.shared}};
        } else {
            j["gflops_per_image"] = m.vision.gflopsPerImage;
            j["image_size"] = m.vision.nativeImageSize;
        }
        arr.push_back(j);
    }
    return arr.dump(2) + "\n";
}

} // namespace gp::cli
