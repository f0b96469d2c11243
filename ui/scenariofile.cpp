#include "scenariofile.h"

#include "core/errors.h"

#include <QFile>
#include <QObject>
#include <QSaveFile>

namespace gp::ui {

namespace {
constexpr qint64 kMaxBytes = 16 * 1024 * 1024;
}

LoadedScenario loadScenarioFile(const QString& path)
{
    LoadedScenario out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        out.error = QObject::tr("cannot open: %1").arg(f.errorString());
        return out;
    }
    if (f.size() > kMaxBytes) {
        out.error = QObject::tr("the file is larger than 16 MiB; scenarios are small JSON files");
        return out;
    }
    const QByteArray bytes = f.readAll();
    try {
        gp::ParsedScenario parsed = gp::parseScenario(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
        for (const auto& w : parsed.warnings)
            out.warnings << QString::fromStdString(w.text());
        out.scenario = std::move(parsed.scenario);
    } catch (const gp::InputError& e) {
        QStringList lines;
        for (const auto& d : e.problems())
            lines << QString::fromStdString(d.text());
        out.error = lines.join(QLatin1Char('\n'));
    } catch (const std::exception& e) {
        out.error = QString::fromUtf8(e.what());
    }
    return out;
}

QString writeFileAtomically(const QString& path, const QByteArray& bytes)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return f.errorString();
    if (f.write(bytes) != bytes.size()) {
        const QString e = f.errorString();
        f.cancelWriting();
        return e;
    }
    if (!f.commit())
        return f.errorString();
    return {};
}

QString saveScenarioFile(const gp::Scenario& s, const QString& path)
{
    std::string text;
    try {
        text = gp::scenarioToJson(s);
    } catch (const std::exception& e) {
        return QObject::tr("cannot serialize the scenario: %1").arg(QString::fromUtf8(e.what()));
    }
    return writeFileAtomically(path, QByteArray::fromStdString(text));
}

} // namespace gp::ui
