#pragma once
#include "core/scenario.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>

class QSettings;

namespace gp::ui {

/// The project version ("0.1.0").
QString applicationVersion();

/// The one typed access point to persistent settings (cf. Tiled's session.h):
/// nothing else in the app touches QSettings keys.
///
/// A settings file that cannot be parsed is renamed to "<name>.corrupt-<timestamp>"
/// and the defaults are used; values of the wrong type or out of range are copied
/// aside the same way, dropped, and read as their defaults. Either way start-up
/// goes on and loadProblems() says what happened.
class Settings
{
public:
    /// Uses QSettings with the application's organisation and name.
    Settings();
    /// Uses an INI file (tests).
    explicit Settings(const QString& iniPath);
    ~Settings();
    Settings(const Settings&) = delete;
    Settings& operator=(const Settings&) = delete;

    gp::PricingModel defaultPricingModel() const;
    void setDefaultPricingModel(gp::PricingModel m);
    double electricityUsdPerKwh() const;
    void setElectricityUsdPerKwh(double v);
    /// Display symbol for money ("$"); estimates stay in USD.
    QString currencySymbol() const;
    void setCurrencySymbol(const QString& s);

    QStringList recentFiles() const;
    void setRecentFiles(const QStringList& files);
    QString lastDirectory() const;
    void setLastDirectory(const QString& dir);

    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray& g);
    QByteArray windowState() const;
    void setWindowState(const QByteArray& s);
    QByteArray splitterState() const;
    void setSplitterState(const QByteArray& s);

    /// The scenario New starts from: the core default with the pricing defaults applied.
    gp::Scenario newScenario() const;

    void sync();

    /// What was wrong with the stored settings when they were read (one sentence
    /// each, naming the file and where the original was kept); empty when all was well.
    const QStringList& loadProblems() const { return m_problems; }
    /// The folder for crash-recovery autosaves: AppDataLocation/autosave for the
    /// application's settings, "<the INI file's folder>/autosave" for an INI file.
    QString autosaveDirectory() const;

private:
    void open();
    void checkStoredValues();

    QString m_iniPath; // empty: the application's settings
    std::unique_ptr<QSettings> m_settings;
    QStringList m_problems;
};

} // namespace gp::ui
