#pragma once
// Shared by rules.cpp and rulesseeds.cpp (the seeds' rules of thumb): not part
// of the public interface.
#include "core/rules/rules.h"

#include <string>
#include <vector>

namespace gp {

struct Scenario;

namespace rulesdetail {

extern const char* const kSeed000;
extern const char* const kSeed001;
extern const char* const kSeed002;
extern const char* const kSeed003;
extern const char* const kSeed004;

/// printf-style formatting of one number.
std::string f(const char* fmt, double v);
/// A scenario from its model and workload JSON objects (plus extra top-level members).
Scenario scenario(const std::string& model, const std::string& workload, const std::string& extra = "");
double gib(double bytes);

/// Rules added by issue #12: spot savings, PUE, H100 vs A100, H200 vs H100.
void appendSeedRules(std::vector<RuleCheck>& out, const Catalog& catalog);

} // namespace rulesdetail
} // namespace gp
