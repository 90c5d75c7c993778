/*
 * analyzer/clang_dl.h: libclang, loaded on first use. toolgate links no
 * libclang: commands that never analyse (call, list, sandbox exec, ...) do
 * not pay the ~16 ms it takes to map and relocate LLVM. tg_clang_load()
 * dlopen()s it once per process (before the parse child is forked, so a
 * long-running `toolgate serve` loads it once); every clang_* name used by
 * clangcheck.c then resolves through a table of pointers whose types come
 * from <clang-c/Index.h> itself. Include this instead of <clang-c/Index.h>.
 */
#ifndef TG_ANALYZER_CLANG_DL_H
#define TG_ANALYZER_CLANG_DL_H

#include <clang-c/Index.h>

/* every libclang function clangcheck.c calls */
#define TG_CLANG_FUNCTIONS(X) \
	X(clang_Cursor_Evaluate) \
	X(clang_getClangVersion) \
	X(clang_Cursor_getArgument) \
	X(clang_Cursor_getMangling) \
	X(clang_Cursor_getNumArguments) \
	X(clang_Cursor_isNull) \
	X(clang_EvalResult_dispose) \
	X(clang_EvalResult_getAsLongLong) \
	X(clang_EvalResult_getAsStr) \
	X(clang_EvalResult_getKind) \
	X(clang_File_isEqual) \
	X(clang_createIndex) \
	X(clang_disposeDiagnostic) \
	X(clang_disposeIndex) \
	X(clang_disposeSourceRangeList) \
	X(clang_disposeString) \
	X(clang_disposeTokens) \
	X(clang_disposeTranslationUnit) \
	X(clang_equalCursors) \
	X(clang_getAllSkippedRanges) \
	X(clang_getCString) \
	X(clang_getCanonicalType) \
	X(clang_getCursorDefinition) \
	X(clang_getCursorExtent) \
	X(clang_getCursorKind) \
	X(clang_getCursorLinkage) \
	X(clang_getCursorLocation) \
	X(clang_getCursorReferenced) \
	X(clang_getCursorSemanticParent) \
	X(clang_getCursorSpelling) \
	X(clang_getCursorType) \
	X(clang_getDiagnostic) \
	X(clang_getDiagnosticCategoryText) \
	X(clang_getDiagnosticLocation) \
	X(clang_getDiagnosticOption) \
	X(clang_getDiagnosticSeverity) \
	X(clang_getDiagnosticSpelling) \
	X(clang_getExpansionLocation) \
	X(clang_getFile) \
	X(clang_getFileName) \
	X(clang_getNullCursor) \
	X(clang_getNumDiagnostics) \
	X(clang_getPointeeType) \
	X(clang_getRangeStart) \
	X(clang_getTokenSpelling) \
	X(clang_getTranslationUnitCursor) \
	X(clang_hashCursor) \
	X(clang_isAttribute) \
	X(clang_isCursorDefinition) \
	X(clang_parseTranslationUnit2) \
	X(clang_tokenize) \
	X(clang_visitChildren) \
	X(clang_getTokenLocation) \
	X(clang_getLocation) \
	X(clang_getRange) \
	X(clang_getSpellingLocation) \
	X(clang_isExpression) \
	X(clang_getArrayElementType) \
	X(clang_isConstQualifiedType) \
	X(clang_Cursor_getStorageClass) \
	X(clang_getTokenKind) \
	X(clang_isFunctionTypeVariadic) \
	X(clang_equalLocations) \
	X(clang_getRangeEnd) \
	/* end */

struct tg_clang_api {
#define TG_CLANG_MEMBER(f) __typeof__(f) *f;
	TG_CLANG_FUNCTIONS(TG_CLANG_MEMBER)
#undef TG_CLANG_MEMBER
};

extern struct tg_clang_api tg_clang_api;

/* 0 once libclang is loaded; TG_ERR_UNAVAILABLE naming the library and
 * dlerror() otherwise. Thread-safe, loads at most once. */
int tg_clang_load(void);

#ifndef TG_CLANG_DL_IMPL
#define clang_Cursor_Evaluate (tg_clang_api.clang_Cursor_Evaluate)
#define clang_getClangVersion (tg_clang_api.clang_getClangVersion)
#define clang_Cursor_getArgument (tg_clang_api.clang_Cursor_getArgument)
#define clang_Cursor_getMangling (tg_clang_api.clang_Cursor_getMangling)
#define clang_Cursor_getNumArguments (tg_clang_api.clang_Cursor_getNumArguments)
#define clang_Cursor_isNull (tg_clang_api.clang_Cursor_isNull)
#define clang_EvalResult_dispose (tg_clang_api.clang_EvalResult_dispose)
#define clang_EvalResult_getAsLongLong (tg_clang_api.clang_EvalResult_getAsLongLong)
#define clang_EvalResult_getAsStr (tg_clang_api.clang_EvalResult_getAsStr)
#define clang_EvalResult_getKind (tg_clang_api.clang_EvalResult_getKind)
#define clang_File_isEqual (tg_clang_api.clang_File_isEqual)
#define clang_createIndex (tg_clang_api.clang_createIndex)
#define clang_disposeDiagnostic (tg_clang_api.clang_disposeDiagnostic)
#define clang_disposeIndex (tg_clang_api.clang_disposeIndex)
#define clang_disposeSourceRangeList (tg_clang_api.clang_disposeSourceRangeList)
#define clang_disposeString (tg_clang_api.clang_disposeString)
#define clang_disposeTokens (tg_clang_api.clang_disposeTokens)
#define clang_disposeTranslationUnit (tg_clang_api.clang_disposeTranslationUnit)
#define clang_equalCursors (tg_clang_api.clang_equalCursors)
#define clang_getAllSkippedRanges (tg_clang_api.clang_getAllSkippedRanges)
#define clang_getCString (tg_clang_api.clang_getCString)
#define clang_getCanonicalType (tg_clang_api.clang_getCanonicalType)
#define clang_getCursorDefinition (tg_clang_api.clang_getCursorDefinition)
#define clang_getCursorExtent (tg_clang_api.clang_getCursorExtent)
#define clang_getCursorKind (tg_clang_api.clang_getCursorKind)
#define clang_getCursorLinkage (tg_clang_api.clang_getCursorLinkage)
#define clang_getCursorLocation (tg_clang_api.clang_getCursorLocation)
#define clang_getCursorReferenced (tg_clang_api.clang_getCursorReferenced)
#define clang_getCursorSemanticParent (tg_clang_api.clang_getCursorSemanticParent)
#define clang_getCursorSpelling (tg_clang_api.clang_getCursorSpelling)
#define clang_getCursorType (tg_clang_api.clang_getCursorType)
#define clang_getDiagnostic (tg_clang_api.clang_getDiagnostic)
#define clang_getDiagnosticCategoryText (tg_clang_api.clang_getDiagnosticCategoryText)
#define clang_getDiagnosticLocation (tg_clang_api.clang_getDiagnosticLocation)
#define clang_getDiagnosticOption (tg_clang_api.clang_getDiagnosticOption)
#define clang_getDiagnosticSeverity (tg_clang_api.clang_getDiagnosticSeverity)
#define clang_getDiagnosticSpelling (tg_clang_api.clang_getDiagnosticSpelling)
#define clang_getExpansionLocation (tg_clang_api.clang_getExpansionLocation)
#define clang_getFile (tg_clang_api.clang_getFile)
#define clang_getFileName (tg_clang_api.clang_getFileName)
#define clang_getNullCursor (tg_clang_api.clang_getNullCursor)
#define clang_getNumDiagnostics (tg_clang_api.clang_getNumDiagnostics)
#define clang_getPointeeType (tg_clang_api.clang_getPointeeType)
#define clang_getRangeStart (tg_clang_api.clang_getRangeStart)
#define clang_getTokenSpelling (tg_clang_api.clang_getTokenSpelling)
#define clang_getTranslationUnitCursor (tg_clang_api.clang_getTranslationUnitCursor)
#define clang_hashCursor (tg_clang_api.clang_hashCursor)
#define clang_isAttribute (tg_clang_api.clang_isAttribute)
#define clang_isCursorDefinition (tg_clang_api.clang_isCursorDefinition)
#define clang_parseTranslationUnit2 (tg_clang_api.clang_parseTranslationUnit2)
#define clang_tokenize (tg_clang_api.clang_tokenize)
#define clang_visitChildren (tg_clang_api.clang_visitChildren)
#define clang_getTokenLocation (tg_clang_api.clang_getTokenLocation)
#define clang_getLocation (tg_clang_api.clang_getLocation)
#define clang_getRange (tg_clang_api.clang_getRange)
#define clang_getSpellingLocation (tg_clang_api.clang_getSpellingLocation)
#define clang_isExpression (tg_clang_api.clang_isExpression)
#define clang_getArrayElementType (tg_clang_api.clang_getArrayElementType)
#define clang_isConstQualifiedType (tg_clang_api.clang_isConstQualifiedType)
#define clang_Cursor_getStorageClass (tg_clang_api.clang_Cursor_getStorageClass)
#define clang_getTokenKind (tg_clang_api.clang_getTokenKind)
#define clang_isFunctionTypeVariadic (tg_clang_api.clang_isFunctionTypeVariadic)
#define clang_equalLocations (tg_clang_api.clang_equalLocations)
#define clang_getRangeEnd (tg_clang_api.clang_getRangeEnd)
#endif

#endif
