// gp_catalog_table: a build-time tool. Reads the built-in catalog
// (resources/catalog/gpu-catalog.json, compiled in) through
// Catalog::fromJsonText, with every check a user's catalog gets, and writes
// the C++ source that defines Catalog::builtin() from those entries: the
// programs then start without parsing 76 KB of JSON (issue #19: the CLI's
// start). tst_catalog compares Catalog::builtin() with a fresh parse of the
// same JSON, field by field.
//
//   gp_catalog_table OUTPUT.cpp
#include "core/hardware/catalog.h"
#include "core/hardware/catalogio.h"

#include "core/base/errors.h"
#include "core/base/generatedsource.h"

#include <exception>
#include <iostream>
#include <sstream>
#include <string>

namespace {

// A new Gpu or HourlyPrice member must be written below and compared in
// tst_catalogtable (builtinTableMatchesTheJson); this trips when one is added.
#if defined(__GLIBCXX__) && defined(__x86_64__) // the sizes of this project's toolchain
static_assert(sizeof(gp::Gpu) == 688 && sizeof(gp::HourlyPrice) == 104,
              "gp::Gpu changed: write the new member in catalogtable.cpp and compare it in tst_catalogtable");
#endif

std::string strings(const std::vector<std::string>& v)
{
    std::string out = "{";
    for (std::size_t i = 0; i < v.size(); ++i)
        out += (i ? ", " : "") + gp::detail::cppQuoted(v[i]);
    return out + "}";
}

void write(std::ostream& o, const gp::Gpu& g)
{
    const gp::HourlyPrice& p = g.pricePerHour;
    o << "    {\n        Gpu g;\n";
    o << "        g.id = " << gp::detail::cppQuoted(g.id) << ";\n";
    o << "        g.vendor = " << gp::detail::cppQuoted(g.vendor) << ";\n";
    o << "        g.name = " << gp::detail::cppQuoted(g.name) << ";\n";
    o << "        g.category = " << gp::detail::cppQuoted(g.category) << ";\n";
    o << "        g.architecture = " << gp::detail::cppQuoted(g.architecture) << ";\n";
    o << "        g.formFactor = " << gp::detail::cppQuoted(g.formFactor) << ";\n";
    o << "        g.memoryGb = " << gp::detail::cppNumber(g.memoryGb) << ";\n";
    o << "        g.memoryType = " << gp::detail::cppQuoted(g.memoryType) << ";\n";
    o << "        g.bandwidthGbps = " << gp::detail::cppNumber(g.bandwidthGbps) << ";\n";
    o << "        g.fp32Tflops = " << gp::detail::cppNumber(g.fp32Tflops) << ";\n";
    o << "        g.tf32Tflops = " << gp::detail::cppNumber(g.tf32Tflops) << ";\n";
    o << "        g.fp16Tflops = " << gp::detail::cppNumber(g.fp16Tflops) << ";\n";
    o << "        g.bf16Tflops = " << gp::detail::cppNumber(g.bf16Tflops) << ";\n";
    o << "        g.fp8Tflops = " << gp::detail::cppNumber(g.fp8Tflops) << ";\n";
    o << "        g.int8Tops = " << gp::detail::cppNumber(g.int8Tops) << ";\n";
    o << "        g.fp4Tflops = " << gp::detail::cppNumber(g.fp4Tflops) << ";\n";
    o << "        g.tdpW = " << gp::detail::cppNumber(g.tdpW) << ";\n";
    o << "        g.interconnect = " << gp::detail::cppQuoted(g.interconnect) << ";\n";
    o << "        g.interconnectGbps = " << gp::detail::cppNumber(g.interconnectGbps) << ";\n";
    o << "        g.pcieGen = " << g.pcieGen << ";\n";
    o << "        g.migMaxInstances = " << g.migMaxInstances << ";\n";
    o << "        g.smCount = " << g.smCount << ";\n";
    o << "        g.migSms = {";
    for (std::size_t i = 0; i < g.migSms.size(); ++i)
        o << (i ? ", " : "") << "{" << gp::detail::cppQuoted(g.migSms[i].first) << ", " << g.migSms[i].second << "}";
    o << "};\n";
    o << "        g.migSmsSource = " << gp::detail::cppQuoted(g.migSmsSource) << ";\n";
    o << "        g.ecc = " << (g.ecc ? "true" : "false") << ";\n";
    o << "        g.year = " << g.year << ";\n";
    o << "        g.pricePerHour.low = " << gp::detail::cppNumber(p.low) << ";\n";
    o << "        g.pricePerHour.typical = " << gp::detail::cppNumber(p.typical) << ";\n";
    o << "        g.pricePerHour.high = " << gp::detail::cppNumber(p.high) << ";\n";
    if (p.spot)
        o << "        g.pricePerHour.spot = " << gp::detail::cppNumber(*p.spot) << ";\n";
    o << "        g.pricePerHour.providers = " << gp::detail::cppQuoted(p.providers) << ";\n";
    o << "        g.pricePerHour.seen = " << gp::detail::cppQuoted(p.seen) << ";\n";
    o << "        g.purchaseUsd = " << gp::detail::cppNumber(g.purchaseUsd) << ";\n";
    o << "        g.purchaseNote = " << gp::detail::cppQuoted(g.purchaseNote) << ";\n";
    o << "        g.confidence = " << gp::detail::cppQuoted(g.confidence) << ";\n";
    o << "        g.uncertainFields = " << strings(g.uncertainFields) << ";\n";
    o << "        g.sources = " << strings(g.sources) << ";\n";
    o << "        g.notes = " << gp::detail::cppQuoted(g.notes) << ";\n";
    o << "        g.tier = Tier(" << int(g.tier) << ");\n";
    o << "        g.userDefined = " << (g.userDefined ? "true" : "false") << ";\n";
    o << "        v.push_back(std::move(g));\n    }\n";
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::cerr << "usage: gp_catalog_table OUTPUT.cpp\n";
        return 2;
    }
    try {
        const gp::Catalog cat = gp::Catalog::fromJsonText(gp::detail::builtinCatalogJson(), "catalog");
        std::ostringstream o;
        o << "// Generated by gp_catalog_table (core/hardware/catalogtable.cpp) from\n"
             "// resources/catalog/gpu-catalog.json. Do not edit.\n"
             "#include \"core/hardware/catalog.h\"\n\n#include <utility>\n#include <vector>\n\n"
             "namespace gp {\n\nnamespace {\n\nstd::vector<Gpu> builtinEntries()\n{\n    std::vector<Gpu> v;\n"
          << "    v.reserve(" << cat.gpus().size() << ");\n";
        for (const gp::Gpu& g : cat.gpus())
            write(o, g);
        o << "    return v;\n}\n\n} // namespace\n\n"
             "const Catalog& Catalog::builtin()\n{\n"
             "    // Built once, on first use (thread-safe by the magic-statics rule), and\n"
             "    // never destroyed: a program's exit need not free 48 entries one by one.\n"
             "    static const Catalog* catalog = new Catalog(fromCheckedEntries(builtinEntries()));\n"
             "    return *catalog;\n}\n\n} // namespace gp\n";
        if (!gp::detail::writeGeneratedSource(argv[1], o.str(), "gp_catalog_table"))
            return 1;
    } catch (const gp::InputError& e) {
        std::cerr << "gp_catalog_table: the built-in catalog is invalid: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
