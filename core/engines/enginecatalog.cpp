// The engines' documented arguments, embedded from resources/engines/*.json.
#include "core/engines/enginecatalog.h"

#include "core/base/errors.h"

#include <cstddef>
#include <mutex>
#include <string_view>

namespace gp {

// Each engine's list, embedded by core/CMakeLists.txt as kEngine<Name>Json (NUL-terminated)
// and kEngine<Name>JsonSize; GP_ENGINES names them once, in the order `launch` lists them.
#define GP_ENGINES(X) X(Vllm) X(Sglang) X(Trtllm) X(TorchrunFsdp) X(Deepspeed) X(Accelerate) X(Torchtune)
#define GP_ENGINE_DECLARE(name)                                                                                        \
    extern const char kEngine##name##Json[];                                                                           \
    extern const std::size_t kEngine##name##JsonSize;
GP_ENGINES(GP_ENGINE_DECLARE)
#undef GP_ENGINE_DECLARE

namespace {

std::set<std::string> stringSet(const nlohmann::json& doc, const char* key)
{
    std::set<std::string> out;
    if (doc.contains(key) && doc[key].is_array())
        for (const auto& v : doc[key])
            if (v.is_string())
                out.insert(v.get<std::string>());
    return out;
}

EngineSpec parseSpec(std::string_view text)
{
    const nlohmann::json doc = nlohmann::json::parse(text);
    EngineSpec e;
    e.id = doc.at("engine").get<std::string>();
    e.name = doc.value("name", e.id);
    e.kind = doc.at("kind").get<std::string>();
    e.version = doc.at("version").get<std::string>();
    e.command = doc.value("command", e.id);
    const auto& src = doc.at("source");
    std::string path;
    if (src.contains("path"))
        path = src["path"].get<std::string>();
    else if (src.contains("paths") && !src["paths"].empty())
        path = src["paths"][0].get<std::string>();
    path = path.substr(0, path.find(" ("));
    e.source = src.value("repo", std::string()) + " " + path;
    if (src.contains("commit"))
        e.source += " @ " + src["commit"].get<std::string>().substr(0, 12);
    e.flags = stringSet(doc, "flags");
    for (const auto& f : stringSet(doc, "script_flags"))
        e.flags.insert(f);
    e.configKeys = stringSet(doc, "config_keys");
    e.scriptKeys = stringSet(doc, "script_keys");
    if (doc.contains("choices"))
        for (const auto& [k, v] : doc["choices"].items())
            for (const auto& c : v)
                e.choices[k].insert(c.get<std::string>());
    e.doc = doc;
    return e;
}

const std::vector<EngineSpec>& specs()
{
    static const std::vector<EngineSpec> all = [] {
#define GP_ENGINE_TEXT(name) std::string_view(kEngine##name##Json, kEngine##name##JsonSize),
        const std::string_view texts[] = {GP_ENGINES(GP_ENGINE_TEXT)};
#undef GP_ENGINE_TEXT
        std::vector<EngineSpec> out;
        for (auto t : texts)
            out.push_back(parseSpec(t));
        return out;
    }();
    return all;
}

} // namespace

bool EngineSpec::accepts(const std::string& flagOrKey, const std::string& value) const
{
    const auto it = choices.find(flagOrKey);
    return it == choices.end() || it->second.count(value) > 0;
}

const std::vector<std::string>& engineIds()
{
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> out;
        for (const auto& s : specs())
            out.push_back(s.id);
        return out;
    }();
    return ids;
}

const EngineSpec& engineSpec(const std::string& id)
{
    for (const auto& s : specs())
        if (s.id == id)
            return s;
    std::string list;
    for (const auto& i : engineIds())
        list += (list.empty() ? "" : ", ") + i;
    throw InputError("--for", "unknown engine \"" + id + "\"; one of " + list);
}

} // namespace gp
