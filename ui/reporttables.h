#pragma once

class QTextDocument;

namespace gp::ui {

/// Gives every table of a laid-out report document column widths that keep
/// each word whole: each column gets at least its widest word (a price such as
/// "$1.99", a header word such as "Precision"), and the room left is shared by
/// how much more each column's text would take on one line. Qt's own table
/// layout shares the width by content length alone and so broke "$1.99" into
/// "$1.9" / "9" and headers inside words. When even the widest words do not
/// fit, the widths follow them and Qt breaks what it must.
void fitTableColumns(QTextDocument& doc);

} // namespace gp::ui
