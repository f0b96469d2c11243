#include "settings.h"

#include "scenariofile.h"
#include "windowgeometry.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

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
    auto make = [this] {
        return m_iniPath.isEmpty() ? std::make_unique<QSettings>()
                                   : std::make_unique<QSettings>(m_iniPath, QSettings::IniFormat);
    };
    m_settings = make();
    // QSettings reads lazily: sync() reads the file and checks the section
    // headers, the lines of a section are parsed when first asked for.
    m_settings->sync();
    (void)m_settings->allKeys();
    const QString path = m_settings->fileName();
    if (m_settings->status() == QSettings::FormatError && QFileInfo(path).isFile()) {
        // Unparseable: keep the file for the user under another name and start
        // from the defaults, so this start works and the next one is clean.
        m_settings.reset();
        QString error;
        const QString aside = setFileAside(path, corruptTag(), &error);
        m_settings = make();
        m_settings->clear(); // whatever the cache still holds of the bad file
        m_settings->sync();
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
    const QString path = m_settings->fileName();
    QString kept;
    if (QFileInfo(path).isFile()) {
        const QString aside = asidePath(path, corruptTag());
        if (QFile::copy(path, aside))
            kept = QCoreApplication::translate("Settings", " The original file was kept as %1.")
                       .arg(QDir::toNativeSeparators(aside));
    }
    for (const auto& key : bad)
        m_settings->remove(key);
    m_settings->sync();
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
}

double Settings::electricityUsdPerKwh() const
{
    const double v = m_settings->value(kElectricity, gp::defaultScenario().pricing.electricityUsdPerKwh).toDouble();
    return v >= 0 && v < 100 ? v : gp::defaultScenario().pricing.electricityUsdPerKwh;
}

void Settings::setElectricityUsdPerKwh(double v)
{
    m_settings->setValue(kElectricity, v);
}

QString Settings::currencySymbol() const
{
    const QString s = m_settings->value(kCurrency, QStringLiteral("$")).toString();
    return s.isEmpty() ? QStringLiteral("$") : s.left(4);
}

void Settings::setCurrencySymbol(const QString& s)
{
    m_settings->setValue(kCurrency, s);
}

QStringList Settings::recentFiles() const
{
    return m_settings->value(kRecent).toStringList();
}

void Settings::setRecentFiles(const QStringList& files)
{
    m_settings->setValue(kRecent, files);
}

QString Settings::lastDirectory() const
{
    return m_settings->value(kLastDir).toString();
}

void Settings::setLastDirectory(const QString& dir)
{
    m_settings->setValue(kLastDir, dir);
}

QByteArray Settings::windowGeometry() const
{
    return m_settings->value(kGeometry).toByteArray();
}

void Settings::setWindowGeometry(const QByteArray& g)
{
    m_settings->setValue(kGeometry, g);
}

QByteArray Settings::windowState() const
{
    return m_settings->value(kState).toByteArray();
}

void Settings::setWindowState(const QByteArray& s)
{
    m_settings->setValue(kState, s);
}

QByteArray Settings::splitterState() const
{
    return m_settings->value(kSplitter).toByteArray();
}

void Settings::setSplitterState(const QByteArray& s)
{
    m_settings->setValue(kSplitter, s);
}

gp::Scenario Settings::newScenario() const
{
    gp::Scenario s = gp::defaultScenario();
    s.pricing.model = defaultPricingModel();
    s.pricing.electricityUsdPerKwh = electricityUsdPerKwh();
    return s;
}

void Settings::sync()
{
    m_settings->sync();
}

} // namespace gp::ui
