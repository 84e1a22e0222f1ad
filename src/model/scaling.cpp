#include "scaling.h"
