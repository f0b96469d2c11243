#include "scenariofile.h"

#include "atomicfile.h"

#include "core/base/errors.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QObject>

namespace gp::ui {

LoadedScenario loadScenarioFile(const QString& path)
{
    LoadedScenario out;
    QString error;
    const QByteArray bytes = readFileBounded(path, kMaxReadBytes, &error);
    if (!error.isEmpty()) {
        out.error = QObject::tr("cannot open: %1").arg(error);
        return out;
    }
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

QString asidePath(const QString& path, const QString& tag)
{
    QString target = path + QLatin1Char('.') + tag;
    for (int n = 2; QFileInfo::exists(target) && n < 1000; ++n)
        target = QStringLiteral("%1.%2-%3").arg(path, tag).arg(n);
    return target;
}

QString setFileAside(const QString& path, const QString& tag, QString* error)
{
    const QString target = asidePath(path, tag);
    QFile f(path);
    if (!f.rename(target)) {
        if (error)
            *error = f.errorString();
        return {};
    }
    return target;
}

QString corruptTag()
{
    return QStringLiteral("corrupt-") + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
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
