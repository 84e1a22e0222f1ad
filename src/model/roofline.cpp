#include "roofline.h"
