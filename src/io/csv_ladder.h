#pragma once

namespace napkin {}  // namespace napkin
