#include "settings.h"

#include "atomicfile.h"
#include "scenariofile.h"
#include "windowgeometry.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cmath>
#include <functional>

namespace gp::ui {

namespace {
const auto kPricing = QStringLiteral("pricing/defaultModel");
const auto kElectricity = QStringLiteral("pricing/electricityUsdPerKwh");
const auto kCurrency = QStringLiteral("display/currencySymbol");
const auto kRecent = QStringLiteral("files/recent");
const auto kLastDir = QStringLiteral("files/lastDirectory");
const auto kGeometry = QStringLiteral("window/geometry");
const auto kState = QStringLiteral("window/state");
const auto kSplitter = QStringLiteral("window/splitter");
const auto kCalibration = QStringLiteral("estimates/calibrationFile");

/// The file QSettings() keeps the application's settings in, "" where it is not a file.
/// Worked out as QSettings does (the user's config folder, then organisation/application.conf)
/// without constructing one: QSettings() reads its files in its constructor, so a FIFO there
/// would block and a 2 GiB file be read whole before any check of ours.
QString nativeSettingsFile()
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    if (base.isEmpty())
        return {};
    QString org = QCoreApplication::organizationName();
    if (org.isEmpty())
        org = QStringLiteral("Unknown Organization"); // QSettings' own fallback
    const QString app = QCoreApplication::applicationName();
    const QString name = app.isEmpty() ? org + QStringLiteral(".conf") : org + QLatin1Char('/') + app + QStringLiteral(".conf");
    return QFileInfo(QDir(base).filePath(name)).absoluteFilePath();
#else
    return {};
#endif
}

/// A value as text, to compare what QSettings holds with what it reads back.
QString valueText(const QVariant& held, const QVariant& v)
{
    if (held.typeId() == QMetaType::QStringList)
        return v.toStringList().join(QChar(0x1f));
    if (held.typeId() == QMetaType::QByteArray)
        return QString::fromLatin1(v.toByteArray().toHex());
    return v.toString();
}

QString tr(const char* text)
{
    return QCoreApplication::translate("Settings", text);
}
} // namespace

QString applicationVersion()
{
    return QStringLiteral(GP_UI_VERSION);
}

Settings::Settings()
{
    open();
}

Settings::Settings(const QString& iniPath)
    : m_iniPath(iniPath)
{
    open();
}

Settings::~Settings() = default;

void Settings::open()
{
    m_filePath = m_iniPath.isEmpty() ? nativeSettingsFile() : QFileInfo(m_iniPath).absoluteFilePath();
    if (!m_filePath.isEmpty()) {
        m_staging = std::make_unique<QTemporaryDir>();
        if (!m_staging->isValid()) {
            m_problems << tr("Cannot create a temporary folder (%1); settings are written without a check.")
                              .arg(m_staging->errorString());
            m_staging.reset();
        }
    }
    auto make = [this] {
        if (m_staging)
            return std::make_unique<QSettings>(stagingPath(), QSettings::IniFormat);
        return m_iniPath.isEmpty() ? std::make_unique<QSettings>()
                                   : std::make_unique<QSettings>(m_iniPath, QSettings::IniFormat);
    };
    const QFileInfo info(m_filePath);
    if (!m_filePath.isEmpty() && (info.exists() || info.isSymLink())) {
        // Read here, bounded (a FIFO or /dev/zero is refused, a 2 GiB file refused
        // by its size), and handed to QSettings as a copy.
        QString why;
        const QByteArray bytes = readFileBounded(m_filePath, kMaxReadBytes, &why);
        if (why.isEmpty() && m_staging) {
            QFile copy(stagingPath());
            if (!copy.open(QIODevice::WriteOnly) || copy.write(bytes) != bytes.size() || !copy.flush())
                why = tr("cannot copy it to %1: %2").arg(QDir::toNativeSeparators(stagingPath()), copy.errorString());
            copy.close();
        }
        if (why.isEmpty()) {
            m_fileBytes = bytes;
        } else {
            QFile::remove(stagingPath());
            QString error;
            const QString aside = setFileAside(m_filePath, corruptTag(), &error);
            const QString file = QDir::toNativeSeparators(m_filePath);
            m_problems << (aside.isEmpty() ? tr("The settings file %1 cannot be read (%2) and could not be moved aside "
                                                "(%3); the defaults are used.")
                                                 .arg(file, why, error)
                                           : tr("The settings file %1 cannot be read (%2); the defaults are used. The "
                                                "old file was kept as %3.")
                                                 .arg(file, why, QDir::toNativeSeparators(aside)));
        }
    }
    m_settings = make();
    // QSettings reads lazily: sync() reads the file and checks the section
    // headers, the lines of a section are parsed when first asked for.
    m_settings->sync();
    (void)m_settings->allKeys();
    const QString path = m_filePath.isEmpty() ? m_settings->fileName() : m_filePath;
    if (m_settings->status() == QSettings::FormatError && QFileInfo(path).isFile()) {
        // Unparseable: keep the file for the user under another name and start
        // from the defaults, so this start works and the next one is clean.
        m_settings.reset();
        QString error;
        const QString aside = setFileAside(path, corruptTag(), &error);
        m_settings = make();
        m_settings->clear(); // whatever the cache still holds of the bad file
        m_settings->sync();
        m_fileBytes.clear();
        const QString file = QDir::toNativeSeparators(path);
        if (aside.isEmpty())
            m_problems << QCoreApplication::translate("Settings", "The settings file %1 is not a valid settings file "
                                                                  "and could not be moved aside (%2); the defaults are used.")
                              .arg(file, error);
        else
            m_problems << QCoreApplication::translate("Settings", "The settings file %1 is not a valid settings file; "
                                                                  "the defaults are used. The old file was kept as %2.")
                              .arg(file, QDir::toNativeSeparators(aside));
        return;
    }
    checkStoredValues();
}

void Settings::checkStoredValues()
{
    // Each value this class reads, with what makes it usable; anything else was
    // written by hand or by another program and is read as its default.
    using Check = std::function<bool(const QVariant&)>;
    const auto isType = [](QMetaType::Type t) { return Check([t](const QVariant& v) { return v.typeId() == t; }); };
    const std::pair<QString, Check> checks[] = {
        {kPricing,
         [](const QVariant& v) {
             bool ok = false;
             const int i = v.toInt(&ok);
             return ok && i >= 0 && i <= static_cast<int>(gp::PricingModel::Purchase);
         }},
        {kElectricity,
         [](const QVariant& v) {
             bool ok = false;
             const double d = v.toDouble(&ok);
             return ok && std::isfinite(d) && d >= 0 && d < 100;
         }},
        {kCurrency, [](const QVariant& v) { return v.typeId() == QMetaType::QString && v.toString().size() <= 4; }},
        {kRecent,
         [](const QVariant& v) {
             // A list of one is stored as a plain string, an empty one as @Invalid().
             return !v.isValid() || v.typeId() == QMetaType::QString || v.typeId() == QMetaType::QStringList;
         }},
        {kLastDir, isType(QMetaType::QString)},
        {kCalibration, isType(QMetaType::QString)},
        // Window and splitter states are checked before use: absurd sizes (a
        // hand-edited or damaged file) would put the window off screen or make
        // the first layout take minutes.
        {kGeometry,
         [](const QVariant& v) {
             return v.typeId() == QMetaType::QByteArray && !isDamagedWindowGeometry(v.toByteArray());
         }},
        {kState, isType(QMetaType::QByteArray)},
        {kSplitter,
         [](const QVariant& v) {
             return v.typeId() == QMetaType::QByteArray && !isDamagedSplitterState(v.toByteArray(), kMainSplitterPanes);
         }},
    };
    QStringList bad;
    for (const auto& [key, valid] : checks)
        if (m_settings->contains(key) && !valid(m_settings->value(key)))
            bad << key;
    if (bad.isEmpty())
        return;
    const QString path = m_filePath.isEmpty() ? m_settings->fileName() : m_filePath;
    QString kept;
    if (QFileInfo(path).isFile()) {
        const QString aside = asidePath(path, corruptTag());
        if (QFile::copy(path, aside))
            kept = QCoreApplication::translate("Settings", " The original file was kept as %1.")
                       .arg(QDir::toNativeSeparators(aside));
    }
    for (const auto& key : bad)
        m_settings->remove(key);
    sync();
    m_problems << QCoreApplication::translate("Settings", "Invalid values in the settings file %1 were replaced by the "
                                                          "defaults: %2.%3")
                      .arg(QDir::toNativeSeparators(path), bad.join(QStringLiteral(", ")), kept);
}

QString Settings::autosaveDirectory() const
{
    const QString base = m_iniPath.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                                             : QFileInfo(m_iniPath).absolutePath();
    return base.isEmpty() ? QString() : QDir(base).filePath(QStringLiteral("autosave"));
}

gp::PricingModel Settings::defaultPricingModel() const
{
    const int v = m_settings->value(kPricing, static_cast<int>(gp::defaultScenario().pricing.model)).toInt();
    if (v < 0 || v > static_cast<int>(gp::PricingModel::Purchase))
        return gp::PricingModel::OnDemand;
    return static_cast<gp::PricingModel>(v);
}

void Settings::setDefaultPricingModel(gp::PricingModel m)
{
    m_settings->setValue(kPricing, static_cast<int>(m));
    sync();
}

double Settings::electricityUsdPerKwh() const
{
    const double v = m_settings->value(kElectricity, gp::defaultScenario().pricing.electricityUsdPerKwh).toDouble();
    return v >= 0 && v < 100 ? v : gp::defaultScenario().pricing.electricityUsdPerKwh;
}

void Settings::setElectricityUsdPerKwh(double v)
{
    m_settings->setValue(kElectricity, v);
    sync();
}

QString Settings::currencySymbol() const
{
    const QString s = m_settings->value(kCurrency, QStringLiteral("$")).toString();
    return s.isEmpty() ? QStringLiteral("$") : s.left(4);
}

void Settings::setCurrencySymbol(const QString& s)
{
    m_settings->setValue(kCurrency, s);
    sync();
}

QString Settings::calibrationFile() const
{
    return m_settings->value(kCalibration).toString();
}

void Settings::setCalibrationFile(const QString& path)
{
    if (path.isEmpty())
        m_settings->remove(kCalibration);
    else
        m_settings->setValue(kCalibration, path);
    sync();
}

QStringList Settings::recentFiles() const
{
    return m_settings->value(kRecent).toStringList();
}

void Settings::setRecentFiles(const QStringList& files)
{
    m_settings->setValue(kRecent, files);
    sync();
}

QString Settings::lastDirectory() const
{
    return m_settings->value(kLastDir).toString();
}

void Settings::setLastDirectory(const QString& dir)
{
    m_settings->setValue(kLastDir, dir);
    sync();
}

QByteArray Settings::windowGeometry() const
{
    return m_settings->value(kGeometry).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray& g)
{
    m_settings->setValue(kGeometry, g);
    sync();
}

QByteArray Settings::windowState() const
{
    return m_settings->value(kState).toByteArray();
}

void Settings::setWindowState(const QByteArray& s)
{
    m_settings->setValue(kState, s);
    sync();
}

QByteArray Settings::splitterState() const
{
    return m_settings->value(kSplitter).toByteArray();
}

void Settings::setSplitterState(const QByteArray& s)
{
    m_settings->setValue(kSplitter, s);
    sync();
}

gp::Scenario Settings::newScenario() const
{
    gp::Scenario s = gp::defaultScenario();
    s.pricing.model = defaultPricingModel();
    s.pricing.electricityUsdPerKwh = electricityUsdPerKwh();
    return s;
}

QString Settings::stagingPath() const
{
    return m_staging ? m_staging->filePath(QStringLiteral("settings.ini")) : QString();
}

bool Settings::verifyStaging(const QByteArray& bytes, QString* error)
{
    // QSettings wrote its copy with QSaveFile, which may say nothing of a short write:
    // read back by a fresh QSettings (a new name, so not its cache), it must hold
    // every key with its value.
    const QString probe = m_staging->filePath(QStringLiteral("verify-%1.ini").arg(++m_verifications));
    bool same = false;
    {
        QFile f(probe);
        if (f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size() && f.flush()) {
            f.close();
            QSettings check(probe, QSettings::IniFormat);
            QStringList keys = m_settings->allKeys();
            QStringList read = check.allKeys();
            keys.sort();
            read.sort();
            same = check.status() == QSettings::NoError && keys == read;
            for (int i = 0; same && i < keys.size(); ++i) {
                const QVariant held = m_settings->value(keys[i]);
                same = valueText(held, held) == valueText(held, check.value(keys[i]));
            }
        }
    }
    QFile::remove(probe);
    if (!same)
        *error = tr("the settings could not be written completely to the temporary folder %1 (is the disk full?)")
                     .arg(QDir::toNativeSeparators(m_staging->path()));
    return same;
}

QString Settings::sync()
{
    m_settings->sync();
    QString error;
    if (!m_staging) {
        if (m_settings->status() == QSettings::AccessError)
            error = tr("cannot write the settings to %1").arg(QDir::toNativeSeparators(m_settings->fileName()));
        m_lastSyncError = error;
        return error;
    }
    if (m_settings->status() != QSettings::NoError) {
        error = tr("cannot write a temporary copy in %1").arg(QDir::toNativeSeparators(m_staging->path()));
    } else {
        QByteArray bytes;
        if (QFileInfo::exists(stagingPath()))
            bytes = readFileBounded(stagingPath(), kMaxReadBytes, &error);
        const bool changed = bytes != m_fileBytes || (!bytes.isEmpty() && !QFileInfo::exists(m_filePath));
        if (error.isEmpty() && changed && verifyStaging(bytes, &error)) {
            if (!QDir().mkpath(QFileInfo(m_filePath).absolutePath()))
                error = tr("cannot create the folder %1").arg(QDir::toNativeSeparators(QFileInfo(m_filePath).absolutePath()));
            else
                error = writeFileAtomically(m_filePath, bytes);
            if (error.isEmpty())
                m_fileBytes = bytes;
        }
    }
    if (!error.isEmpty())
        error = tr("Cannot save the settings to %1: %2").arg(QDir::toNativeSeparators(m_filePath), error);
    m_lastSyncError = error;
    return error;
}

QString Settings::currencySymbolProblem(const QString& symbol)
{
    if (symbol.size() > kMaxCurrencyChars)
        return tr("The currency symbol is at most %1 characters long (\"%2\" has %3).")
            .arg(QString::number(kMaxCurrencyChars), symbol, QString::number(symbol.size()));
    for (const QChar c : symbol)
        if (!c.isPrint() || c.isSpace())
            return tr("The currency symbol cannot hold spaces or control characters.");
    return {};
}

} // namespace gp::ui
