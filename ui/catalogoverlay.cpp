#include "catalogoverlay.h"

#include "scenariofile.h"

#include "core/catalog.h"
#include "core/errors.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QStringList>

namespace gp::ui {

QString mergeIntoOverlay(const QString& path, const std::vector<nlohmann::json>& entries)
{
    if (path.isEmpty())
        return QObject::tr("no overlay path (set HOME, XDG_CONFIG_HOME or GPUPLANNER_CATALOG_OVERLAY)");
    nlohmann::json doc = nlohmann::json::array();
    if (QFileInfo::exists(path)) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return QObject::tr("cannot read the existing overlay: %1").arg(f.errorString());
        doc = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
        if (doc.is_discarded() || !doc.is_array())
            return QObject::tr("the existing overlay is not a JSON array; fix or reset it first");
    }
    for (const auto& e : entries) {
        if (!e.is_object() || !e.contains("id") || !e["id"].is_string())
            return QObject::tr("an overlay entry needs a string \"id\"");
        auto it = std::find_if(doc.begin(), doc.end(),
                               [&](const nlohmann::json& d) { return d.is_object() && d.value("id", std::string()) == e["id"]; });
        if (it == doc.end()) {
            doc.push_back(e);
            continue;
        }
        if (it->value("remove", false))
            *it = nlohmann::json::object({{"id", e["id"]}});
        for (const auto& [k, v] : e.items()) {
            if (k == "price_hour_usd" && v.is_object() && it->contains(k) && (*it)[k].is_object())
                (*it)[k].update(v);
            else
                (*it)[k] = v;
        }
    }
    const std::string text = doc.dump(2) + "\n";
    try {
        gp::Catalog check = gp::Catalog::builtin();
        check.applyOverlayText(text, path.toStdString());
    } catch (const gp::InputError& e) {
        QStringList lines;
        for (const auto& d : e.problems())
            lines << QString::fromStdString(d.text());
        return lines.join(QLatin1Char('\n'));
    }
    if (!QDir().mkpath(QFileInfo(path).absolutePath()))
        return QObject::tr("cannot create the folder %1").arg(QFileInfo(path).absolutePath());
    return writeFileAtomically(path, QByteArray::fromStdString(text));
}

QString removeOverlay(const QString& path)
{
    if (path.isEmpty() || !QFileInfo::exists(path))
        return {};
    QFile f(path);
    if (!f.remove())
        return f.errorString();
    return {};
}

} // namespace gp::ui
