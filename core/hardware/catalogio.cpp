// Reading the GPU catalog and user overlays: the JSON document, each entry's
// keys (with their key paths in every diagnostic), and the overlay merge.
#include "core/hardware/catalog.h"
#include "core/hardware/catalogio.h"
#include "core/hardware/catalogmig.h"

#include "core/base/errors.h"
#include "core/base/jsonread.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <utility>

namespace gp {

namespace {

using nlohmann::json;
using detail::JsonReader;

// A catalog is a few hundred KB at most; anything far larger is a wrong file,
// and refusing it early keeps a stray drag-and-drop from eating memory.
constexpr std::size_t kMaxDocumentBytes = 16u * 1024u * 1024u;
// Entries nest three levels (array > entry > price object / list). The limit
// leaves room while keeping pathological inputs away from recursive code
// (nlohmann's destructor and our walkers).
constexpr int kMaxDepth = 32;
// A broken 16 MB file could produce millions of diagnostics; the first hundred
// are enough to fix it and keep the message printable.
constexpr std::size_t kMaxProblems = 100;

// Keys come from user files; a megabyte-long key must not become a megabyte-long message.
constexpr std::size_t kMaxKeyLength = 64;

std::string entryPath(std::string_view origin, std::size_t index)
{
    return std::string(origin) + "[" + std::to_string(index) + "]";
}

std::string keyPath(const std::string& base, std::string_view key)
{
    return detail::joinPath(base, key, kMaxKeyLength);
}

// ---------------------------------------------------------------------------
// Parsing the document

json parseDocument(std::string_view text, std::string_view origin)
{
    const std::string where(origin);
    if (text.size() > kMaxDocumentBytes)
        throw InputError(where, "document is " + std::to_string(text.size()) + " bytes; the limit is "
                                    + std::to_string(kMaxDocumentBytes) + " bytes (16 MB)");
    if (const auto at = detail::findTooDeep(text, kMaxDepth); at != std::string_view::npos)
        throw InputError(where, "nesting deeper than " + std::to_string(kMaxDepth) + " levels at byte "
                                    + std::to_string(at));
    try {
        return json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        throw InputError(where, "invalid JSON at byte " + std::to_string(e.byte) + ": "
                                    + detail::stripExceptionTag(e.what()));
    } catch (const json::exception& e) {
        // e.g. out_of_range 406 for a number literal that overflows a double.
        throw InputError(where, "invalid JSON: " + detail::stripExceptionTag(e.what()));
    }
}

// ---------------------------------------------------------------------------
// Field readers. Each validates one value, reports a problem naming its key
// path, and writes the result only when the value is valid.

enum class NumberRule {
    Positive,           // required and > 0 (memory, bandwidth)
    NonNegativeOrNull,  // optional figure; null = unknown / unsupported -> 0
};

void readNumber(const json& v, const std::string& path, JsonReader& p, NumberRule rule, double& out)
{
    if (rule == NumberRule::NonNegativeOrNull && v.is_null()) {
        out = 0;
        return;
    }
    const bool ok = v.is_number() && std::isfinite(v.get<double>())
        && (rule == NumberRule::Positive ? v.get<double>() > 0 : v.get<double>() >= 0);
    if (!ok) {
        p.error(path, rule == NumberRule::Positive ? "must be a positive number, got " + p.describe(v)
                                                 : "must be a number >= 0 or null, got " + p.describe(v));
        return;
    }
    // Far above any accelerator (and any price) but finite: a typo such as
    // 1e300 GB would otherwise make every model "fit".
    constexpr double kSaneMax = 1e7;
    if (v.get<double>() > kSaneMax) {
        p.error(path, "must be at most 1e7, got " + p.describe(v));
        return;
    }
    out = v.get<double>();
}

void readInt(const json& v, const std::string& path, JsonReader& p, int lo, int hi, bool nullable, int& out)
{
    if (nullable && v.is_null()) {
        out = 0;
        return;
    }
    // Accept 2024.0 as well as 2024: some tools write every number as a double.
    bool ok = false;
    if (v.is_number()) {
        const double d = v.get<double>();
        ok = std::isfinite(d) && d == std::floor(d) && d >= lo && d <= hi;
    }
    if (!ok) {
        p.error(path, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi)
                        + (nullable ? " or null" : "") + ", got " + p.describe(v));
        return;
    }
    out = static_cast<int>(v.get<double>());
}

enum class StringRule { Optional, NonEmpty };

void readString(const json& v, const std::string& path, JsonReader& p, StringRule rule, std::string& out)
{
    if (rule == StringRule::Optional && v.is_null()) {
        out.clear();
        return;
    }
    if (auto s = p.stringAt(v, path, rule == StringRule::NonEmpty))
        out = std::move(*s);
}

void readBool(const json& v, const std::string& path, JsonReader& p, bool& out)
{
    if (auto b = p.booleanAt(v, path))
        out = *b;
}

void readStringList(const json& v, const std::string& path, JsonReader& p, std::vector<std::string>& out)
{
    if (v.is_null()) {
        out.clear();
        return;
    }
    if (!v.is_array()) {
        p.error(path, "must be an array of strings, got " + p.describe(v));
        return;
    }
    std::vector<std::string> list;
    bool ok = true;
    for (std::size_t j = 0; j < v.size(); ++j) {
        if (auto s = p.stringAt(v[j], path + "[" + std::to_string(j) + "]"))
            list.push_back(std::move(*s));
        else
            ok = false;
    }
    if (ok)
        out = std::move(list);
}

bool isValidId(const std::string& id)
{
    if (id.empty() || id.size() > 100 || id.front() == '-')
        return false;
    return std::all_of(id.begin(), id.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

/// Reads "id"; returns the id, or an empty string after reporting a problem.
std::string readId(const json& entry, const std::string& base, JsonReader& p)
{
    const std::string path = keyPath(base, "id");
    const auto it = entry.find("id");
    if (it == entry.end()) {
        p.error(path, "missing required key");
        return {};
    }
    if (!it->is_string() || !isValidId(it->get<std::string>())) {
        // Ids end up in file names, URLs and command lines, so keep them plain.
        p.error(path, "must be a string of lowercase letters, digits and dashes (e.g. \"my-gpu-80gb\"), got "
                        + p.describe(*it));
        return {};
    }
    return it->get<std::string>();
}

// The price object is merged key by key, so an overlay can change one figure
// ({"price_hour_usd": {"typical": 2.5}}) without restating the others.
void readPrice(const json& v, const std::string& path, JsonReader& p, HourlyPrice& out)
{
    if (v.is_null()) {
        out = HourlyPrice{};
        return;
    }
    if (!v.is_object()) {
        p.error(path, "must be an object with low/typical/high/spot/providers/seen, got " + p.describe(v));
        return;
    }
    HourlyPrice price = out;
    const std::size_t before = p.errorCount();
    for (const auto& [key, value] : v.items()) {
        const std::string sub = keyPath(path, key);
        if (key == "low")
            readNumber(value, sub, p, NumberRule::NonNegativeOrNull, price.low);
        else if (key == "typical")
            readNumber(value, sub, p, NumberRule::NonNegativeOrNull, price.typical);
        else if (key == "high")
            readNumber(value, sub, p, NumberRule::NonNegativeOrNull, price.high);
        else if (key == "spot") {
            if (value.is_null()) {
                price.spot.reset();
            } else {
                double spot = 0;
                const std::size_t n = p.errorCount();
                readNumber(value, sub, p, NumberRule::NonNegativeOrNull, spot);
                if (p.errorCount() == n)
                    price.spot = spot;
            }
        } else if (key == "providers")
            readString(value, sub, p, StringRule::Optional, price.providers);
        else if (key == "seen")
            readString(value, sub, p, StringRule::Optional, price.seen);
        else
            p.error(sub, "unknown key");
    }
    if (p.errorCount() == before)
        out = std::move(price);
}

/// The reference's sparse figures are informational (we plan with dense peaks),
/// but a malformed value still means a malformed file, so validate and drop them.
void checkSparse(const json& v, const std::string& path, JsonReader& p)
{
    if (v.is_null())
        return;
    if (!v.is_object()) {
        p.error(path, "must be an object of sparse peaks (tf32/fp16/fp8/int8/fp4), got " + p.describe(v));
        return;
    }
    static const std::set<std::string, std::less<>> kKeys = {"tf32", "fp16", "fp8", "int8", "fp4"};
    for (const auto& [key, value] : v.items()) {
        const std::string sub = keyPath(path, key);
        if (!kKeys.contains(key)) {
            p.error(sub, "unknown key");
            continue;
        }
        double ignored = 0;
        readNumber(value, sub, p, NumberRule::NonNegativeOrNull, ignored);
    }
}

struct NumberField {
    std::string_view key;
    double Gpu::*member;   // nullptr: accepted and validated, not stored
    NumberRule rule;
};

constexpr NumberField kNumberFields[] = {
    {"memory_gb", &Gpu::memoryGb, NumberRule::Positive},
    {"memory_bandwidth_gbps", &Gpu::bandwidthGbps, NumberRule::Positive},
    {"fp32_tflops", &Gpu::fp32Tflops, NumberRule::NonNegativeOrNull},
    {"tf32_tflops", &Gpu::tf32Tflops, NumberRule::NonNegativeOrNull},
    {"fp16_tflops", &Gpu::fp16Tflops, NumberRule::NonNegativeOrNull},
    {"bf16_tflops", &Gpu::bf16Tflops, NumberRule::NonNegativeOrNull},
    {"fp8_tflops", &Gpu::fp8Tflops, NumberRule::NonNegativeOrNull},
    {"int8_tops", &Gpu::int8Tops, NumberRule::NonNegativeOrNull},
    {"fp4_tflops", &Gpu::fp4Tflops, NumberRule::NonNegativeOrNull},
    {"tdp_w", &Gpu::tdpW, NumberRule::NonNegativeOrNull},
    {"interconnect_gbps", &Gpu::interconnectGbps, NumberRule::NonNegativeOrNull},
    {"purchase_usd", &Gpu::purchaseUsd, NumberRule::NonNegativeOrNull},
    // In the reference but not used by the planner (no FP64 workloads; GeForce
    // FP16-accumulate rates do not apply to PyTorch training).
    {"fp64_tflops", nullptr, NumberRule::NonNegativeOrNull},
    {"fp16_acc16_tflops", nullptr, NumberRule::NonNegativeOrNull},
};

struct StringField {
    std::string_view key;
    std::string Gpu::*member;
    StringRule rule;
};

constexpr StringField kStringFields[] = {
    {"name", &Gpu::name, StringRule::NonEmpty},
    {"vendor", &Gpu::vendor, StringRule::Optional},
    {"architecture", &Gpu::architecture, StringRule::Optional},
    {"form_factor", &Gpu::formFactor, StringRule::Optional},
    {"memory_type", &Gpu::memoryType, StringRule::Optional},
    {"interconnect", &Gpu::interconnect, StringRule::Optional},
    {"purchase_note", &Gpu::purchaseNote, StringRule::Optional},
    {"confidence", &Gpu::confidence, StringRule::Optional},
    {"notes", &Gpu::notes, StringRule::Optional},
    {"mig_sms_source", &Gpu::migSmsSource, StringRule::Optional},
};

struct IntField {
    std::string_view key;
    int Gpu::*member;
    int lo;
    int hi;
    bool nullable;
};

constexpr IntField kIntFields[] = {
    {"pcie_gen", &Gpu::pcieGen, 1, 7, true},
    {"mig_max_instances", &Gpu::migMaxInstances, 0, 64, true},
    {"sm_count", &Gpu::smCount, 1, 4096, true},
    {"year", &Gpu::year, 1990, 2100, true},
};

// Keys a new entry must carry besides "id" (readId checks that one); everything
// else has a meaningful default.
constexpr std::string_view kRequiredKeys[] = {"name", "memory_gb", "memory_bandwidth_gbps"};

constexpr std::string_view kCategories[] = {"datacenter", "consumer", "workstation", "tpu"};

/// Applies one key of an entry to g. Returns false for a key the format lacks.
bool applyField(Gpu& g, const std::string& key, const json& v, const std::string& path, JsonReader& p)
{
    for (const auto& f : kNumberFields) {
        if (f.key == key) {
            double ignored = 0;
            readNumber(v, path, p, f.rule, f.member ? g.*f.member : ignored);
            return true;
        }
    }
    for (const auto& f : kStringFields) {
        if (f.key == key) {
            readString(v, path, p, f.rule, g.*f.member);
            return true;
        }
    }
    for (const auto& f : kIntFields) {
        if (f.key == key) {
            readInt(v, path, p, f.lo, f.hi, f.nullable, g.*f.member);
            return true;
        }
    }
    if (key == "category") {
        // The tier rules key off the category, so an unknown one must not slip through.
        if (const auto c = p.choiceAt(v, path, kCategories))
            g.category = std::string(kCategories[*c]);
        return true;
    }
    if (key == "ecc") {
        readBool(v, path, p, g.ecc);
        return true;
    }
    if (key == "mig") {
        // Redundant with mig_max_instances (0 = no MIG); validated only.
        bool ignored = false;
        readBool(v, path, p, ignored);
        return true;
    }
    if (key == "mig_sms") {
        readMigSms(v, path, p, g.migSms);
        return true;
    }
    if (key == "price_hour_usd") {
        readPrice(v, path, p, g.pricePerHour);
        return true;
    }
    if (key == "sparse") {
        checkSparse(v, path, p);
        return true;
    }
    if (key == "uncertain_fields") {
        readStringList(v, path, p, g.uncertainFields);
        return true;
    }
    if (key == "sources") {
        readStringList(v, path, p, g.sources);
        return true;
    }
    return false;
}

/// Applies every key of entry except "id" (and "remove" where the caller handles it).
void applyFields(Gpu& g, const json& entry, const std::string& base, JsonReader& p, bool overlay)
{
    for (const auto& [key, value] : entry.items()) {
        if (key == "id" || (overlay && key == "remove"))
            continue;
        const std::string path = keyPath(base, key);
        if (!applyField(g, key, value, path, p))
            p.error(path, "unknown key");
    }
}

void requireKeys(const json& entry, const std::string& base, JsonReader& p)
{
    for (const auto key : kRequiredKeys) {
        if (!entry.contains(key))
            p.error(keyPath(base, key), "missing required key");
    }
}

/// A GPU with no compute peak would make every time estimate divide by zero.
void requireComputePeak(const Gpu& g, const std::string& base, JsonReader& p)
{
    if (g.fp32Tflops > 0 || g.tf32Tflops > 0 || g.fp16Tflops > 0 || g.bf16Tflops > 0 || g.fp8Tflops > 0
        || g.int8Tops > 0 || g.fp4Tflops > 0)
        return;
    p.error(base, "needs at least one compute peak > 0 (fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, "
                "fp8_tflops, int8_tops or fp4_tflops)");
}

/// Market tier, derived from the data so user-defined GPUs get one too:
///  - category consumer -> Consumer, workstation -> Workstation;
///  - tpu -> TrainingDatacenter when BF16 >= 400 TFLOPS (v5p, v6e, v7), else
///    InferenceDatacenter (v5e);
///  - datacenter (the default):
///    * Frontier: year >= 2024 and BF16 >= 2000 TFLOPS dense (B200, B300,
///      GB200, GB300, MI355X);
///    * TrainingDatacenter: HBM memory and one of BF16 >= 300 TFLOPS, >= 80 GB,
///      or a >= 300 GB/s scale-up link (A100, H100, H200, GH200, MI210/250X/
///      300X/325X, Gaudi 2/3; V100 qualifies through its 300 GB/s NVLink).
///      HBM is the gate because GDDR parts with big tensor peaks (L40S: 366
///      BF16) are sold and rented as inference cards;
///    * InferenceDatacenter otherwise (T4, L4, A10, A10G, A30, A40, L40, L40S).
Tier computeTier(const Gpu& g)
{
    if (g.category == "consumer")
        return Tier::Consumer;
    if (g.category == "workstation")
        return Tier::Workstation;
    if (g.category == "tpu")
        return g.bf16Tflops >= 400 ? Tier::TrainingDatacenter : Tier::InferenceDatacenter;
    if (g.year >= 2024 && g.bf16Tflops >= 2000)
        return Tier::Frontier;
    const bool hbm = g.memoryType.find("HBM") != std::string::npos;
    if (hbm && (g.bf16Tflops >= 300 || g.memoryGb >= 80 || g.interconnectGbps >= 300))
        return Tier::TrainingDatacenter;
    return Tier::InferenceDatacenter;
}

std::vector<Gpu>::iterator findIn(std::vector<Gpu>& gpus, std::string_view id)
{
    return std::find_if(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.id == id; });
}

void requireArray(const json& doc, std::string_view origin)
{
    if (!doc.is_array())
        throw InputError(std::string(origin), std::string("expected a JSON array of GPU entries, got ")
                                                  + doc.type_name());
}

} // namespace

// ---------------------------------------------------------------------------

Catalog Catalog::fromJsonText(std::string_view text, std::string_view origin)
{
    const json doc = parseDocument(text, origin);
    requireArray(doc, origin);

    JsonReader problems(detail::ValueStyle::Verbatim, kMaxProblems, std::string(origin));
    Catalog catalog;
    std::map<std::string, std::size_t, std::less<>> firstIndex;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& entry = doc[i];
        const std::string base = entryPath(origin, i);
        if (!entry.is_object()) {
            problems.error(base, "expected an object (one GPU entry), got " + problems.describe(entry));
            continue;
        }
        const std::size_t before = problems.errorCount();
        Gpu g;
        g.category = "datacenter";
        g.id = readId(entry, base, problems);
        if (!g.id.empty()) {
            const auto [it, inserted] = firstIndex.emplace(g.id, i);
            if (!inserted)
                problems.error(keyPath(base, "id"),
                             "duplicate id \"" + g.id + "\" (first used at " + entryPath(origin, it->second) + ")");
        }
        applyFields(g, entry, base, problems, /*overlay=*/false);
        requireKeys(entry, base, problems);
        if (problems.errorCount() == before)
            requireComputePeak(g, base, problems);
        if (problems.errorCount() == before)
            checkMigSms(g, base, problems);
        if (problems.errorCount() == before) {
            g.tier = computeTier(g);
            catalog.m_gpus.push_back(std::move(g));
        }
    }
    problems.throwIfErrors();
    return catalog;
}

void Catalog::applyOverlayText(std::string_view text, std::string_view origin)
{
    const json doc = parseDocument(text, origin);
    requireArray(doc, origin);

    // Work on a copy and swap at the end, so a bad overlay leaves *this untouched.
    std::vector<Gpu> next = m_gpus;
    JsonReader problems(detail::ValueStyle::Verbatim, kMaxProblems, std::string(origin));
    std::set<std::string, std::less<>> seen;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        const json& entry = doc[i];
        const std::string base = entryPath(origin, i);
        if (!entry.is_object()) {
            problems.error(base, "expected an object (one GPU entry), got " + problems.describe(entry));
            continue;
        }
        const std::string id = readId(entry, base, problems);
        if (id.empty())
            continue;
        // Applying the same id twice (e.g. remove, then re-add) is order-dependent
        // and almost always a copy-paste slip; make the user say it once.
        if (!seen.insert(id).second) {
            problems.error(keyPath(base, "id"), "id \"" + id + "\" appears more than once in this overlay");
            continue;
        }

        if (const auto rm = entry.find("remove"); rm != entry.end()) {
            const auto remove = problems.booleanAt(*rm, keyPath(base, "remove"));
            if (!remove)
                continue;
            if (*remove) {
                if (entry.size() > 2) {
                    problems.error(keyPath(base, "remove"),
                                 "an entry that removes a GPU takes only \"id\" and \"remove\"");
                    continue;
                }
                const auto it = findIn(next, id);
                if (it == next.end()) {
                    const std::string hint = detail::closestGpuId(next, id);
                    problems.error(keyPath(base, "id"), "no GPU \"" + id + "\" to remove"
                                                          + (hint.empty() ? "" : "; did you mean \"" + hint + "\"?"));
                    continue;
                }
                next.erase(it);
                continue;
            }
        }

        const auto existing = findIn(next, id);
        const bool isNew = existing == next.end();
        Gpu g;
        if (isNew) {
            g.id = id;
            g.category = "datacenter";
        } else {
            g = *existing;
        }
        const std::size_t before = problems.errorCount();
        applyFields(g, entry, base, problems, /*overlay=*/true);
        if (isNew)
            requireKeys(entry, base, problems);
        if (problems.errorCount() == before)
            requireComputePeak(g, base, problems);
        if (problems.errorCount() == before)
            checkMigSms(g, base, problems);
        if (problems.errorCount() != before)
            continue;
        g.userDefined = true;
        g.tier = computeTier(g);
        if (isNew)
            next.push_back(std::move(g));
        else
            *existing = std::move(g);
    }
    problems.throwIfErrors();
    m_gpus.swap(next);
}

} // namespace gp
