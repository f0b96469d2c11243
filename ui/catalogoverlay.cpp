#include "catalogoverlay.h"

#include "atomicfile.h"

#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/base/jsonparse.h"
#include "core/hardware/userconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QStringList>

namespace gp::ui {

namespace {

QString problemText(const gp::InputError& e)
{
    QStringList lines;
    for (const auto& d : e.problems())
        lines << QString::fromStdString(d.text());
    return lines.join(QLatin1Char('\n'));
}

} // namespace

UserCatalog loadUserCatalog(bool setAsideBad)
{
    gp::UserCatalogLoad loaded =
        gp::loadCatalogWithUserOverlay(setAsideBad ? gp::BadOverlay::SetAside : gp::BadOverlay::Report);
    UserCatalog out{std::move(loaded.catalog), QString::fromStdString(loaded.overlayPath), loaded.overlayApplied, {},
                    QString::fromStdString(loaded.setAsidePath)};
    if (loaded.problems.empty())
        return out;
    const QString path = QDir::toNativeSeparators(out.overlayPath);
    if (loaded.unreadable) {
        out.problems << QObject::tr("The user catalog overlay %1 cannot be read (%2); the built-in catalog is used.")
                            .arg(path, QString::fromStdString(gp::printable(loaded.problems.front().message)));
        return out;
    }
    QString kept;
    if (setAsideBad)
        kept = out.setAsidePath.isEmpty()
                   ? QObject::tr(" It could not be moved aside (%1).").arg(QString::fromStdString(loaded.setAsideError))
                   : QObject::tr(" The file was renamed to %1 so the next start is clean; fix it and rename it back "
                                 "to use it.")
                         .arg(QDir::toNativeSeparators(out.setAsidePath));
    out.problems << QObject::tr("The user catalog overlay %1 was ignored and the built-in catalog is used.%2\n%3")
                        .arg(path, kept, QString::fromStdString(loaded.problemText()));
    return out;
}

QString mergeIntoOverlay(const QString& path, const std::vector<nlohmann::json>& entries)
{
    if (path.isEmpty())
        return QObject::tr("no overlay path (set HOME, XDG_CONFIG_HOME or GPUPLANNER_CATALOG_OVERLAY)");
    nlohmann::json doc = nlohmann::json::array();
    if (QFileInfo::exists(path) || QFileInfo(path).isSymLink()) {
        QString why;
        const QByteArray bytes = readFileBounded(path, kMaxReadBytes, &why);
        if (!why.isEmpty())
            return QObject::tr("cannot read the existing overlay %1: %2").arg(QDir::toNativeSeparators(path), why);
        try {
            doc = gp::parseJson(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                                path.toStdString());
        } catch (const gp::InputError& e) {
            return problemText(e);
        }
        if (!doc.is_array())
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
        return problemText(e);
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
