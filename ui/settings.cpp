#include "settings.h"

#include <QSettings>

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
    : m_settings(std::make_unique<QSettings>())
{
}

Settings::Settings(const QString& iniPath)
    : m_settings(std::make_unique<QSettings>(iniPath, QSettings::IniFormat))
{
}

Settings::~Settings() = default;

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
