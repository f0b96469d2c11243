#include "modelspecs.h"

#include "atomicfile.h"
#include "format.h"

#include "core/base/errors.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cmath>

namespace gp::ui {

std::optional<double> parseParamCount(const QString& text)
{
    QString t = text.trimmed();
    t.remove(QLatin1Char(' '));
    t.remove(QLatin1Char(','));
    t.remove(QLatin1Char('_'));
    static const QRegularExpression re(QStringLiteral("^([0-9]*\\.?[0-9]+(?:[eE][+-]?[0-9]+)?)([kKmMbBtT]?)$"));
    const auto m = re.match(t);
    if (!m.hasMatch())
        return std::nullopt;
    bool ok = false;
    double v = m.captured(1).toDouble(&ok);
    if (!ok)
        return std::nullopt;
    const QChar s = m.captured(2).isEmpty() ? QChar() : m.captured(2).at(0).toUpper();
    if (s == QLatin1Char('K'))
        v *= 1e3;
    else if (s == QLatin1Char('M'))
        v *= 1e6;
    else if (s == QLatin1Char('B'))
        v *= 1e9;
    else if (s == QLatin1Char('T'))
        v *= 1e12;
    if (!std::isfinite(v) || v <= 0)
        return std::nullopt;
    return v;
}

std::string explicitJsonFor(const gp::ModelArch& m)
{
    nlohmann::json j = nlohmann::json::object();
    j["family"] = m.family == gp::ModelFamily::Encoder ? "encoder" : "decoder";
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kvHeads > 0 ? m.kvHeads : m.heads;
    if (m.headDim > 0)
        j["head_dim"] = m.headDim;
    j["ffn_hidden"] = m.ffnHidden;
    j["ffn"] = m.ffn == gp::FfnKind::SwiGLU ? "swiglu" : "gelu";
    j["vocab"] = m.vocab;
    j["tied_embeddings"] = m.tiedEmbeddings;
    j["positional"] = m.positional == gp::Positional::Rope ? "rope" : "learned";
    if (m.maxPositions > 0)
        j["max_positions"] = m.maxPositions;
    if (m.moe.enabled()) {
        nlohmann::json moe = {{"experts", m.moe.experts}, {"active", m.moe.active}, {"shared", m.moe.shared}};
        if (m.moe.expertFfnHidden > 0)
            moe["expert_ffn_hidden"] = m.moe.expertFfnHidden;
        j["moe"] = moe;
    }
    // Layer kinds (the form has one window: chunked layers give theirs).
    if (m.slidingLayers + m.chunkedLayers > 0) {
        j["sliding_window"] = m.slidingLayers > 0 ? m.slidingWindow : m.chunkSize;
        j["sliding_layers"] = m.slidingLayers + m.chunkedLayers;
    }
    if (m.linearLayers > 0) {
        j["linear_layers"] = m.linearLayers;
        j["linear_state_bytes"] = static_cast<long long>(m.linearStateBytes);
    }
    return j.dump(2);
}

std::optional<gp::ModelSpec> hfConfigSpecFromText(const QByteArray& text, const QString& origin, QString* error)
{
    // The core refuses oversized, too deeply nested or unreadable configs with
    // messages that name the key.
    try {
        return gp::hfConfigSpecFromText(std::string_view(text.constData(), std::size_t(text.size())), origin.toStdString());
    } catch (const gp::InputError& e) {
        if (error) {
            QStringList lines;
            for (const auto& d : e.problems())
                lines << QString::fromStdString(d.text());
            *error = lines.join(QLatin1Char('\n'));
        }
        return std::nullopt;
    }
}

std::optional<gp::ModelSpec> hfConfigSpecFromFile(const QString& path, QString* error)
{
    QString why;
    const QByteArray bytes = readFileBounded(path, kMaxReadBytes, &why);
    if (!why.isEmpty()) {
        if (error)
            *error = QObject::tr("%1: %2").arg(path, why);
        return std::nullopt;
    }
    auto spec = hfConfigSpecFromText(bytes, path, error);
    if (!spec)
        return spec;
    const auto j = nlohmann::json::parse(spec->jsonText, nullptr, false);
    const QString name = modelNameFromPath(path);
    if (j.is_object() && !j.contains("_name_or_path") && !name.isEmpty()) {
        // Inserted as text: the rest of the object stays as written.
        const std::size_t brace = spec->jsonText.find('{');
        const std::string rest = spec->jsonText.substr(brace + 1);
        const bool empty = rest.find_first_not_of(" \t\r\n") == std::string::npos ||
                           rest[rest.find_first_not_of(" \t\r\n")] == '}';
        spec->jsonText = spec->jsonText.substr(0, brace + 1) + "\n  \"_name_or_path\": " +
                         nlohmann::json(name.toStdString()).dump() + (empty ? "" : ",") + rest;
    }
    return spec;
}

QString modelNameFromPath(const QString& path)
{
    const QFileInfo info(path);
    // The repository's own spelling ("Qwen2.5-7B", "gpt-oss-120b"), as the Hub names it.
    const auto pretty = [](const QString& s) { return s.simplified(); };
    // "Qwen2.5-7B.json" or "Qwen2.5-7B-config.json": the file is named for the model.
    QString stem = info.fileName();
    if (stem.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        stem.chop(5);
    static const QRegularExpression configSuffix(QStringLiteral("[-_. ]?config$"), QRegularExpression::CaseInsensitiveOption);
    stem.remove(configSuffix);
    if (!stem.isEmpty() && stem.compare(QLatin1String("config"), Qt::CaseInsensitive) != 0)
        return pretty(stem);
    // The Hugging Face cache: models--<org>--<name>/snapshots/<hash>/config.json.
    const QStringList parts = QDir::fromNativeSeparators(info.absolutePath()).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    for (qsizetype i = parts.size() - 1; i >= 0; --i)
        if (parts[i].startsWith(QLatin1String("models--")))
            return pretty(parts[i].section(QStringLiteral("--"), -1));
    // Its folder, unless the folder is a generic place.
    static const QStringList generic{QStringLiteral("downloads"), QStringLiteral("download"), QStringLiteral("tmp"),
                                     QStringLiteral("temp"), QStringLiteral("desktop"), QStringLiteral("documents"),
                                     QStringLiteral("home"), QStringLiteral("models"), QStringLiteral("model"),
                                     QStringLiteral("configs"), QStringLiteral("config"), QStringLiteral("snapshots")};
    static const QRegularExpression hash(QStringLiteral("^[0-9a-f]{16,}$"));
    const QString dir = parts.isEmpty() ? QString() : parts.last();
    if (dir.isEmpty() || generic.contains(dir.toLower()) || hash.match(dir).hasMatch() || dir.startsWith(QLatin1Char('.')) ||
        dir.startsWith(QLatin1String("tmp"), Qt::CaseInsensitive))
        return QString();
    return pretty(dir);
}

QString describeModel(const gp::ModelArch& m)
{
    if (m.isLanguageModel()) {
        // One line from the core: counts, layer kinds, experts, MTP, vision
        // tower and how the checkpoint stores its weights.
        QString s = QString::fromStdString(m.summary());
        if (m.approximate)
            s += QObject::tr(". Approximate shape: %1").arg(QString::fromStdString(m.shapeNote));
        return s;
    }
    QString s = QObject::tr("%1 — %2 parameters").arg(QString::fromStdString(m.name), formatCount(m.totalParams()));
    if (m.moe.enabled())
        s += QObject::tr(" (%1 active, %2 experts, %3 per token)")
                 .arg(formatCount(m.modelCardActiveParams()))
                 .arg(m.moe.experts)
                 .arg(m.moe.active);
    if (m.family == gp::ModelFamily::Vision)
        s += QObject::tr(", %1 GFLOPs per %2 px image").arg(formatNumber(m.vision.gflopsPerImage)).arg(m.vision.nativeImageSize);
    else
        s += QObject::tr(", %1 layers x %2 hidden, %3/%4 heads").arg(m.layers).arg(m.hidden).arg(m.heads).arg(m.kvHeads);
    if (m.approximate)
        s += QObject::tr(". Approximate shape: %1").arg(QString::fromStdString(m.shapeNote));
    return s;
}

} // namespace gp::ui
