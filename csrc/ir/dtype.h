//! Data types of tensors and scalars, their sizes and names, and PyTorch-style promotion.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>

namespace mf {

// X(enumerator, printed name, bits). Index is the scalar type of extents and indices; the
// code generator lowers it to int32 or int64 per kernel. It is never a tensor dtype.
#define MF_DATA_TYPES(X)               \
  X(Bool, "bool", 8)                   \
  X(Int32, "int32", 32)                \
  X(Int64, "int64", 64)                \
  X(Index, "index", 64)                \
  X(Half, "half", 16)                  \
  X(BFloat16, "bfloat16", 16)          \
  X(Float, "float", 32)                \
  X(Double, "double", 64)              \
  X(Float8_e4m3fn, "float8_e4m3fn", 8) \
  X(Float4_e2m1fn, "float4_e2m1fn", 4)

enum class DataType {
#define MF_DTYPE_ENUM(e, name, bits) e,
  MF_DATA_TYPES(MF_DTYPE_ENUM)
#undef MF_DTYPE_ENUM
      Int = Int64,  //!< nvFuser's name of int64
};

std::string_view toString(DataType t);

// Sizes. The storage rule: a tensor of a sub-byte type (a 4-bit float, two per byte) stores
// its elements packed, element 0 in the low bits of byte 0, and takes storageBytes(t, numel)
// bytes. Its elements have no byte address: code that compares widths (a vector's bytes,
// alignment in elements, bandwidth) asks dataTypeSizeBit; code that addresses single elements
// in bytes (storage offsets, host element access, the CPU reference) asks dataTypeSize,
// which refuses a sub-byte type, so such a use fails loudly instead of miscounting.

//! Bits of one element (nvFuser's dataTypeSizeBit): 8 for Bool and float8, 32 for Float.
int64_t dataTypeSizeBit(DataType t);
//! Bytes of one element of a whole-byte type; an internal error for a sub-byte type (ask
//! dataTypeSizeBit or storageBytes instead).
int64_t dataTypeSize(DataType t);
//! Bytes that `numel` elements of `t` take, packed: ceil(numel * bits / 8).
int64_t storageBytes(DataType t, int64_t numel);
bool isIntegralType(DataType t);    //!< Int32, Int64, Index
bool isFloatingType(DataType t);    //!< Half, BFloat16, Float, Double, the float8 and float4
bool isNarrowFloat(DataType t);     //!< Half, BFloat16, float8, float4: computed in float
bool isSubByteType(DataType t);     //!< Float4_e2m1fn: stored packed, two per byte
bool isTensorDataType(DataType t);  //!< every type but Index

//! The type arithmetic producing a value of type `t` computes in: narrow floats compute in
//! Float (then round once to `t`), every other type in itself (docs/numerics.md).
DataType computeType(DataType t);

//! The type a binary op of `a` and `b` computes in, as PyTorch's type promotion for two
//! tensors: bool < integers < floating; among integers the wider; among floats the wider,
//! where Half and BFloat16 together promote to Float and float8 or float4 with anything
//! floating promotes to that other type (float4 with float8 gives float8).
DataType promoteTypes(DataType a, DataType b);

//! Promotion of a tensor of type `t` with a scalar of type `s` (PyTorch: a scalar only
//! changes the category, e.g. int tensor * 2.5 -> Float; float16 tensor * 2.5 -> Half).
DataType promoteWithScalar(DataType t, DataType s);

}  // namespace mf

template <>
struct fmt::formatter<mf::DataType> : fmt::formatter<std::string_view> {
  auto format(mf::DataType t, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(mf::toString(t), ctx);
  }
};
