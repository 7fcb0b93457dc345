/*
 * The two reference libraries together: SpanDSP's awgn() clashes with
 * liquid-dsp's, so liquid's is renamed away (tests use SpanDSP's awgn_*()).
 */
#ifndef REFS_H
#define REFS_H
#include <complex.h>
#include <spandsp.h>
#define awgn liquid_awgn_renamed
#include <liquid/liquid.h>
#undef awgn
#endif
