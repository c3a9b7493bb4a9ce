#include "AstralSettings.h"

FName UAstralSettings::GetCategoryName() const
{
	return TEXT("Plugins");
}
