// An LZMA decoder, the single-file page's unpacker: a WebAssembly module of
// its own (no imports, no libc), so the page can unpack the engine's module
// as well as its data. LZMA packs the page's parts 12-21% smaller than
// Zopfli's gzip (scripts/build-web.js). Written from the format's
// description in Igor Pavlov's LZMA SDK (LzmaSpec.cpp, public domain): the
// "LZMA alone" stream that `xz --format=lzma` writes, 13 bytes of header
// (properties, dictionary size, size or all ones) then the range-coded
// data. The whole output is the dictionary, so nothing is allocated: the
// caller lays out the state, the probabilities, the input and the output in
// memory.
namespace {

// No libc here: the fixed-width types by hand (wasm32: int is 32 bits).
using uint8_t = unsigned char;
using uint16_t = unsigned short;
using uint32_t = unsigned int;

constexpr unsigned kStates = 12;
constexpr unsigned kPosStatesMax = 16;
constexpr unsigned kEndPosModelIndex = 14;
constexpr unsigned kNumFullDistances = 1 << (kEndPosModelIndex >> 1);
constexpr unsigned kMatchMinLen = 2;

// The probabilities' places, in 16-bit cells.
constexpr unsigned kIsMatch = 0;
constexpr unsigned kIsRep = kIsMatch + (kStates << 4);
constexpr unsigned kIsRepG0 = kIsRep + kStates;
constexpr unsigned kIsRepG1 = kIsRepG0 + kStates;
constexpr unsigned kIsRepG2 = kIsRepG1 + kStates;
constexpr unsigned kIsRep0Long = kIsRepG2 + kStates;
constexpr unsigned kPosSlot = kIsRep0Long + (kStates << 4);
constexpr unsigned kSpecPos = kPosSlot + (4 << 6);
constexpr unsigned kAlign = kSpecPos + kNumFullDistances - kEndPosModelIndex;
// A length coder: choice, choice 2, low (8 per position state), mid (8 per
// position state), high (256).
constexpr unsigned kLenChoice2 = 1;
constexpr unsigned kLenLow = 2;
constexpr unsigned kLenMid = kLenLow + (kPosStatesMax << 3);
constexpr unsigned kLenHigh = kLenMid + (kPosStatesMax << 3);
constexpr unsigned kLenCoderSize = kLenHigh + 256;
constexpr unsigned kLenCoder = kAlign + 16;
constexpr unsigned kRepLenCoder = kLenCoder + kLenCoderSize;
constexpr unsigned kLiteral = kRepLenCoder + kLenCoderSize;

struct Range {
  const uint8_t* in;
  uint32_t range;
  uint32_t code;

  void normalize() {
    if (range < (1u << 24)) {
      range <<= 8;
      code = (code << 8) | *in++;
    }
  }
  unsigned bit(uint16_t* p) {
    uint32_t bound = (range >> 11) * *p;
    unsigned b;
    if (code < bound) {
      range = bound;
      *p = uint16_t(*p + ((2048 - *p) >> 5));
      b = 0;
    } else {
      range -= bound;
      code -= bound;
      *p = uint16_t(*p - (*p >> 5));
      b = 1;
    }
    normalize();
    return b;
  }
  unsigned tree(uint16_t* p, unsigned bits) {
    unsigned m = 1;
    for (unsigned i = 0; i < bits; i++) m = (m << 1) + bit(p + m);
    return m - (1u << bits);
  }
  unsigned reverse(uint16_t* p, unsigned bits) {
    unsigned m = 1, symbol = 0;
    for (unsigned i = 0; i < bits; i++) {
      unsigned b = bit(p + m);
      m = (m << 1) + b;
      symbol |= b << i;
    }
    return symbol;
  }
  uint32_t direct(unsigned bits) {
    uint32_t result = 0;
    for (; bits; bits--) {
      range >>= 1;
      code -= range;
      uint32_t t = 0u - (code >> 31);
      code += range & t;
      result = (result << 1) + (t + 1);
      normalize();
    }
    return result;
  }
  unsigned length(uint16_t* p, unsigned posState) {
    if (!bit(p)) return tree(p + kLenLow + (posState << 3), 3);
    if (!bit(p + kLenChoice2)) return 8 + tree(p + kLenMid + (posState << 3), 3);
    return 16 + tree(p + kLenHigh, 8);
  }
};

}  // namespace

// A stream's decoding state between calls: the caller decodes in steps
// (lzma_step), so that V8, which runs a function's first calls in its
// baseline compiler, has the optimised code in place after the first steps
// (one call for the engine's 1 MB module took ~36 ms in Chromium at the
// baseline, ~17-24 ms optimised).
struct Stream {
  const uint8_t* in;
  const uint8_t* end;
  uint16_t* probs;
  uint32_t range, code;
  uint32_t rep0, rep1, rep2, rep3;
  uint32_t pos;
  uint32_t state;
  uint32_t properties;
};

extern "C" {

// The probabilities' cells a stream with these properties needs.
__attribute__((export_name("lzma_probs")))
unsigned lzmaProbs(unsigned properties) {
  unsigned lc = properties % 9, lp = (properties / 9) % 5;
  return kLiteral + (0x300u << (lc + lp));
}

// The size of the state lzma_start fills.
__attribute__((export_name("lzma_state_size")))
unsigned lzmaStateSize() { return sizeof(Stream); }

// Starts decoding `in` (an LZMA-alone stream) with `probs` (lzma_probs
// cells of in[0]) into `s`. Returns 0, or -1 where the stream is not one
// this decoder reads.
__attribute__((export_name("lzma_start")))
int lzmaStart(Stream* s, const uint8_t* in, uint32_t inLength, uint16_t* probs) {
  if (inLength < 18 || in[0] >= 9 * 5 * 5 || in[13] != 0) return -1;
  const unsigned cells = lzmaProbs(in[0]);
  for (unsigned i = 0; i < cells; i++) probs[i] = 1024;
  *s = Stream{in + 18, in + inLength, probs, 0xFFFFFFFFu,
              uint32_t(in[14]) << 24 | uint32_t(in[15]) << 16 | uint32_t(in[16]) << 8 | in[17],
              0, 0, 0, 0, 0, 0, in[0]};
  return 0;
}

// Decodes on into out[0, outLength) until at least `stop` bytes are there
// (a match may run past it, never past outLength) or the stream ends.
// Returns the bytes there, or -1 where the stream refers before its start
// or runs past its end.
__attribute__((export_name("lzma_step")))
int lzmaStep(Stream* s, uint8_t* out, uint32_t outLength, uint32_t stop) {
  const unsigned lc = s->properties % 9, lp = (s->properties / 9) % 5, pb = s->properties / 45;
  const uint32_t pbMask = (1u << pb) - 1, lpMask = (1u << lp) - 1;
  uint16_t* const probs = s->probs;
  Range rc{s->in, s->range, s->code};
  uint32_t rep0 = s->rep0, rep1 = s->rep1, rep2 = s->rep2, rep3 = s->rep3, pos = s->pos;
  unsigned state = s->state;
  if (stop > outLength) stop = outLength;
  while (pos < stop) {
    const unsigned posState = pos & pbMask;
    if (!rc.bit(probs + kIsMatch + (state << 4) + posState)) {
      const unsigned prev = pos ? out[pos - 1] : 0;
      uint16_t* lit = probs + kLiteral + 0x300 * (((pos & lpMask) << lc) + (prev >> (8 - lc)));
      unsigned symbol = 1;
      if (state >= 7) {
        unsigned match = out[pos - rep0 - 1];
        do {
          const unsigned matchBit = (match >> 7) & 1;
          match <<= 1;
          const unsigned b = rc.bit(lit + ((1 + matchBit) << 8) + symbol);
          symbol = (symbol << 1) | b;
          if (matchBit != b) break;
        } while (symbol < 0x100);
      }
      while (symbol < 0x100) symbol = (symbol << 1) | rc.bit(lit + symbol);
      out[pos++] = uint8_t(symbol);
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    unsigned len;
    if (rc.bit(probs + kIsRep + state)) {
      if (pos == 0) return -1;
      if (!rc.bit(probs + kIsRepG0 + state)) {
        if (!rc.bit(probs + kIsRep0Long + (state << 4) + posState)) {
          state = state < 7 ? 9 : 11;
          out[pos] = out[pos - rep0 - 1];
          pos++;
          continue;
        }
      } else {
        uint32_t dist;
        if (!rc.bit(probs + kIsRepG1 + state)) {
          dist = rep1;
        } else {
          if (!rc.bit(probs + kIsRepG2 + state)) {
            dist = rep2;
          } else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = rc.length(probs + kRepLenCoder, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2;
      rep2 = rep1;
      rep1 = rep0;
      len = rc.length(probs + kLenCoder, posState);
      state = state < 7 ? 7 : 10;
      const unsigned slot = rc.tree(probs + kPosSlot + ((len < 3 ? len : 3) << 6), 6);
      if (slot < 4) {
        rep0 = slot;
      } else {
        const unsigned bits = (slot >> 1) - 1;
        rep0 = (2 | (slot & 1)) << bits;
        if (slot < kEndPosModelIndex) {
          rep0 += rc.reverse(probs + kSpecPos + rep0 - slot, bits);
        } else {
          rep0 += rc.direct(bits - 4) << 4;
          rep0 += rc.reverse(probs + kAlign, 4);
        }
      }
      if (rep0 == 0xFFFFFFFFu) break;  // the end marker
      if (rep0 >= pos) return -1;
    }
    len += kMatchMinLen;
    if (len > outLength - pos) len = outLength - pos;
    const uint8_t* from = out + pos - rep0 - 1;
    for (unsigned i = 0; i < len; i++) out[pos + i] = from[i];
    pos += len;
    if (rc.in > s->end) return -1;
  }
  if (rc.in > s->end + 4) return -1;
  *s = Stream{rc.in, s->end, probs, rc.range, rc.code, rep0, rep1, rep2, rep3, pos, state, s->properties};
  return int(pos);
}

}  // extern "C"
