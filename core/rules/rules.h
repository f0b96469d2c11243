#pragma once
#include <string>
#include <vector>

namespace gp {

class Catalog;

/// A rule of thumb from the articles the product grew from (shared/seeds),
/// recomputed with the estimation core.
struct RuleCheck {
    std::string id;
    std::string claim;    // the article's words
    std::string source;   // which article
    std::string verdict;  // "holds", "corrected" or "depends"
    std::string finding;  // what the model computes
    std::string reason;   // why it holds, or why it is wrong
};

std::vector<RuleCheck> checkRulesOfThumb(const Catalog& catalog);

std::string rulesToJson(const std::vector<RuleCheck>& rules);
std::string rulesToText(const std::vector<RuleCheck>& rules);

} // namespace gp
