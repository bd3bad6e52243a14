#include "ir/dtype.h"

#include "support/error.h"

namespace mf {

std::string_view toString(DataType t) {
  switch (t) {
#define MF_DTYPE_NAME(e, name, bits) \
  case DataType::e:                  \
    return name;
    MF_DATA_TYPES(MF_DTYPE_NAME)
#undef MF_DTYPE_NAME
  }
  MF_ASSERT(false, "unknown DataType {}", static_cast<int>(t));
}

int64_t dataTypeSizeBit(DataType t) {
  switch (t) {
#define MF_DTYPE_SIZE(e, name, bits) \
  case DataType::e:                  \
    return bits;
    MF_DATA_TYPES(MF_DTYPE_SIZE)
#undef MF_DTYPE_SIZE
  }
  MF_ASSERT(false, "unknown DataType {}", static_cast<int>(t));
}

int64_t dataTypeSize(DataType t) {
  const int64_t bits = dataTypeSizeBit(t);
  MF_ASSERT(bits % 8 == 0,
            "dataTypeSize({}): a {}-bit element has no size in whole bytes; ask "
            "dataTypeSizeBit or storageBytes",
            t, bits);
  return bits / 8;
}

int64_t storageBytes(DataType t, int64_t numel) {
  return (numel * dataTypeSizeBit(t) + 7) / 8;
}

bool isIntegralType(DataType t) {
  return t == DataType::Int32 || t == DataType::Int64 || t == DataType::Index;
}

bool isFloatingType(DataType t) {
  return t == DataType::Half || t == DataType::BFloat16 || t == DataType::Float ||
         t == DataType::Double || t == DataType::Float8_e4m3fn || t == DataType::Float4_e2m1fn;
}

bool isNarrowFloat(DataType t) {
  return t == DataType::Half || t == DataType::BFloat16 || t == DataType::Float8_e4m3fn ||
         t == DataType::Float4_e2m1fn;
}

bool isSubByteType(DataType t) {
  return dataTypeSizeBit(t) < 8;
}

bool isTensorDataType(DataType t) {
  return t != DataType::Index;
}

DataType computeType(DataType t) {
  return isNarrowFloat(t) ? DataType::Float : t;
}

namespace {
// Category: 0 bool, 1 integral, 2 floating.
int category(DataType t) {
  return t == DataType::Bool ? 0 : isIntegralType(t) ? 1 : 2;
}
}  // namespace

DataType promoteTypes(DataType a, DataType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) {
    if (a == DataType::Index || b == DataType::Index) return DataType::Index;
    return DataType::Int64;  // Int32 with Int64
  }
  // Both floating and different: the narrowest of them gives way.
  if (a == DataType::Float4_e2m1fn) return b;
  if (b == DataType::Float4_e2m1fn) return a;
  if (a == DataType::Float8_e4m3fn) return b;
  if (b == DataType::Float8_e4m3fn) return a;
  if (a == DataType::Double || b == DataType::Double) return DataType::Double;
  return DataType::Float;  // Float with a narrower type, or Half with BFloat16
}

DataType promoteWithScalar(DataType t, DataType s) {
  if (category(s) > category(t)) return category(s) == 2 ? DataType::Float : DataType::Int64;
  return t;
}

}  // namespace mf
