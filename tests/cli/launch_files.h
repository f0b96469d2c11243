#pragma once
// Launch files read back for the launch and record tests (tst_cli_launch,
// tst_cli_record): the commands of a bash script (comments dropped, continuations
// joined, flags and words apart), the dotted keys of a block-style YAML file, a
// JSON document flattened to dotted keys, and a number out of a script's header.
#include "cli_runner.h"
#include "tests/common/testfiles.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using gp::test::readFile;

/// An example scenario of resources/examples by its name.
inline std::string example(const char* name) { return examplesDir() + "/" + name + ".gpuplan.json"; }

/// One command of a launch script: its program, positional words and flags.
struct Command {
    std::vector<std::string> tokens;          // without env assignments and a trailing '&'
    std::map<std::string, std::string> flags; // flag -> value ("" for a switch)
    std::vector<std::string> flagOrder;
    std::vector<std::string> words;           // non-flag tokens (program, script, overrides)
};

inline std::string unquote(std::string s)
{
    if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front())
        return s.substr(1, s.size() - 2);
    const auto eq = s.find("='");
    if (eq != std::string::npos && s.back() == '\'')
        return s.substr(0, eq + 1) + s.substr(eq + 2, s.size() - eq - 3);
    return s;
}

/// The commands of a bash script: comments dropped, continuations joined.
inline std::vector<Command> commands(const std::string& script)
{
    std::istringstream in(script);
    std::string line, joined;
    std::vector<std::string> logical;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("set -", 0) == 0 || line == "wait")
            continue;
        if (!line.empty() && line.back() == '\\') {
            joined += line.substr(0, line.size() - 1) + " ";
            continue;
        }
        logical.push_back(joined + line);
        joined.clear();
    }
    std::vector<Command> out;
    for (const auto& l : logical) {
        Command c;
        std::istringstream words(l);
        std::string w;
        while (words >> w) {
            if (c.tokens.empty() && w.find('=') != std::string::npos && w.find('=') < w.find('-'))
                continue; // CUDA_VISIBLE_DEVICES=0,1
            if (w == "&")
                continue;
            c.tokens.push_back(unquote(w));
        }
        for (std::size_t i = 0; i < c.tokens.size(); ++i) {
            const std::string& t = c.tokens[i];
            if (t == "-m" && i == 1 && c.tokens[0] == "python") { // python -m MODULE
                c.words.push_back(c.tokens[++i]);
                continue;
            }
            if (t.size() > 1 && t[0] == '-') {
                std::string value;
                if (i + 1 < c.tokens.size() && c.tokens[i + 1][0] != '-' && c.tokens[i + 1] != "train.py")
                    value = c.tokens[++i];
                c.flags[t] = value;
                c.flagOrder.push_back(t);
            } else {
                c.words.push_back(t);
            }
        }
        out.push_back(c);
    }
    return out;
}

/// The key: value lines of a YAML file in block style, as dotted keys.
inline std::map<std::string, std::string> yamlKeys(const std::string& text)
{
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line;
    std::vector<std::pair<int, std::string>> stack;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(' ');
        if (first == std::string::npos || line[first] == '#')
            continue;
        const int indent = int(first);
        const auto colon = line.find(':', first);
        if (colon == std::string::npos)
            continue;
        const std::string key = line.substr(first, colon - first);
        std::string value = colon + 1 < line.size() ? line.substr(colon + 1) : "";
        value.erase(0, value.find_first_not_of(' '));
        while (!stack.empty() && stack.back().first >= indent)
            stack.pop_back();
        std::string path;
        for (const auto& [i, k] : stack)
            path += k + ".";
        path += key;
        out[path] = value;
        if (value.empty())
            stack.push_back({indent, key});
    }
    return out;
}

inline void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, nlohmann::json>& out)
{
    for (const auto& [k, v] : j.items()) {
        const std::string path = prefix.empty() ? k : prefix + "." + k;
        out[path] = v;
        if (v.is_object() && !v.empty())
            flatten(v, path, out);
    }
}

inline double headerNumber(const std::string& script, const std::string& pattern)
{
    std::smatch m;
    const std::regex re(pattern);
    if (!std::regex_search(script, m, re))
        return std::nan("");
    std::string s = m[1].str();
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    return std::stod(s);
}

/// The names in a folder, sorted.
inline std::vector<std::string> namesIn(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}
