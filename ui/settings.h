#pragma once
#include "core/scenario/scenario.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>

class QSettings;
class QTemporaryDir;

namespace gp::ui {

/// The project version ("0.1.0").
QString applicationVersion();

/// The one typed access point to persistent settings (cf. Tiled's session.h):
/// nothing else in the app touches QSettings keys.
///
/// QSettings works on a private copy of the settings file (it writes with QSaveFile,
/// which can leave an empty file on a full disk); sync() checks that copy and writes
/// it over the real file with writeFileAtomically(). The real file is read bounded
/// (a FIFO or device is refused) before QSettings sees any of it.
///
/// A settings file that cannot be read or parsed is renamed to "<name>.corrupt-<timestamp>"
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

    /// The user's calibration file (absolute path); "" for the built-in calibration.
    QString calibrationFile() const;
    void setCalibrationFile(const QString& path);

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

    /// Writes the settings file (atomically, through writeFileAtomically) when it
    /// changed. Returns the error, "" on success; a failed write leaves the file as it was.
    QString sync();
    /// The error of the last write that failed ("" after one that succeeded).
    QString lastSyncError() const { return m_lastSyncError; }
    /// Longest currency symbol setCurrencySymbol() takes.
    static constexpr int kMaxCurrencyChars = 4;
    /// "" when `symbol` can be the currency symbol, else why not (for the settings dialog).
    static QString currencySymbolProblem(const QString& symbol);

    /// What was wrong with the stored settings when they were read (one sentence
    /// each, naming the file and where the original was kept); empty when all was well.
    const QStringList& loadProblems() const { return m_problems; }
    /// The folder for crash-recovery autosaves: AppDataLocation/autosave for the
    /// application's settings, "<the INI file's folder>/autosave" for an INI file.
    QString autosaveDirectory() const;

private:
    void open();
    void checkStoredValues();

    QString stagingPath() const;
    bool verifyStaging(const QByteArray& bytes, QString* error);

    QString m_iniPath; // empty: the application's settings
    QString m_filePath; // the settings file; "" where the platform keeps settings elsewhere (registry)
    std::unique_ptr<QTemporaryDir> m_staging;
    std::unique_ptr<QSettings> m_settings;
    QByteArray m_fileBytes; // what the settings file holds (as read or last written)
    QString m_lastSyncError;
    int m_verifications = 0;
    QStringList m_problems;
};

} // namespace gp::ui
