/*
 * img_tiff_lib.h - libtiff, loaded when the first TIFF is opened, not
 * when a tool starts: libtiff and what it needs (libLerc, and through
 * it libstdc++; libzstd, liblzma, libjbig) took a third of a tool's
 * start before its first pixel, for a format most runs never meet.
 * The TIFF code calls libtiff by its own names, which this header
 * turns into calls through the table that tiff_lib_load fills (dlopen
 * of the soname the build was made against, GF_TIFF_SONAME).
 */
#ifndef GF_IMG_TIFF_LIB_H
#define GF_IMG_TIFF_LIB_H

#include <stddef.h>

#include <tiffio.h>

/* The libtiff functions the TIFF code calls. */
#define TIFF_LIB_FUNCS(X) \
	X(ClientOpenExt) X(Close) X(DefaultStripSize) X(Flush) X(GetField) \
	X(GetFieldDefaulted) X(GetStrileByteCount) X(GetStrileOffset) \
	X(IsBigEndian) X(IsBigTIFF) X(IsTiled) X(LastDirectory) \
	X(NumberOfDirectories) X(NumberOfStrips) X(NumberOfTiles) \
	X(OpenOptionsAlloc) X(OpenOptionsFree) X(OpenOptionsSetErrorHandlerExtR) \
	X(OpenOptionsSetMaxSingleMemAlloc) X(OpenOptionsSetWarningHandlerExtR) \
	X(ReadDirectory) X(ReadEncodedStrip) X(ReadTile) X(ScanlineSize64) \
	X(SetDirectory) X(SetErrorHandler) X(SetField) X(SetWarningHandler) \
	X(TileSize64) X(WriteScanline)

struct tiff_lib {
#define TIFF_LIB_MEMBER(name) __typeof__(TIFF##name) *name;
	TIFF_LIB_FUNCS(TIFF_LIB_MEMBER)
#undef TIFF_LIB_MEMBER
};

extern struct tiff_lib tiff_lib;

/*
 * Loads libtiff once for the process: 0, or -1 with why (n bytes) saying
 * why it cannot be (every later call says the same).
 */
int tiff_lib_load(char *why, size_t n);

#ifndef TIFF_LIB_TABLE  /* img_tiff_lib.c fills the table by the real names */
#define TIFFClientOpenExt (*tiff_lib.ClientOpenExt)
#define TIFFClose (*tiff_lib.Close)
#define TIFFDefaultStripSize (*tiff_lib.DefaultStripSize)
#define TIFFFlush (*tiff_lib.Flush)
#define TIFFGetField (*tiff_lib.GetField)
#define TIFFGetFieldDefaulted (*tiff_lib.GetFieldDefaulted)
#define TIFFGetStrileByteCount (*tiff_lib.GetStrileByteCount)
#define TIFFGetStrileOffset (*tiff_lib.GetStrileOffset)
#define TIFFIsBigEndian (*tiff_lib.IsBigEndian)
#define TIFFIsBigTIFF (*tiff_lib.IsBigTIFF)
#define TIFFIsTiled (*tiff_lib.IsTiled)
#define TIFFLastDirectory (*tiff_lib.LastDirectory)
#define TIFFNumberOfDirectories (*tiff_lib.NumberOfDirectories)
#define TIFFNumberOfStrips (*tiff_lib.NumberOfStrips)
#define TIFFNumberOfTiles (*tiff_lib.NumberOfTiles)
#define TIFFOpenOptionsAlloc (*tiff_lib.OpenOptionsAlloc)
#define TIFFOpenOptionsFree (*tiff_lib.OpenOptionsFree)
#define TIFFOpenOptionsSetErrorHandlerExtR (*tiff_lib.OpenOptionsSetErrorHandlerExtR)
#define TIFFOpenOptionsSetMaxSingleMemAlloc (*tiff_lib.OpenOptionsSetMaxSingleMemAlloc)
#define TIFFOpenOptionsSetWarningHandlerExtR (*tiff_lib.OpenOptionsSetWarningHandlerExtR)
#define TIFFReadDirectory (*tiff_lib.ReadDirectory)
#define TIFFReadEncodedStrip (*tiff_lib.ReadEncodedStrip)
#define TIFFReadTile (*tiff_lib.ReadTile)
#define TIFFScanlineSize64 (*tiff_lib.ScanlineSize64)
#define TIFFSetDirectory (*tiff_lib.SetDirectory)
#define TIFFSetErrorHandler (*tiff_lib.SetErrorHandler)
#define TIFFSetField (*tiff_lib.SetField)
#define TIFFSetWarningHandler (*tiff_lib.SetWarningHandler)
#define TIFFTileSize64 (*tiff_lib.TileSize64)
#define TIFFWriteScanline (*tiff_lib.WriteScanline)
#endif

#endif
