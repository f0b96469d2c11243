# Writes INPUT as a NUL-terminated char array named SYMBOL (namespace gp) into OUTPUT.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" n)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT} by resources/embed.cmake. Do not edit.\n#include <cstddef>\nnamespace gp {\nextern const char ${SYMBOL}[];\nextern const std::size_t ${SYMBOL}Size;\nconst char ${SYMBOL}[] = {\n${body}0x00};\nconst std::size_t ${SYMBOL}Size = sizeof(${SYMBOL}) - 1;\n}\n")
