/* tachy.h - the public face of libtachy: include this for everything. */
#ifndef TACHY_H
#define TACHY_H

#define TY_VERSION "0.1.0"

#include "tachy/error.h"
#include "tachy/outfile.h"

#endif
