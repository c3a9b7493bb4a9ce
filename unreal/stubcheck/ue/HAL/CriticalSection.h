// Stand-in for Unreal's FCriticalSection (HAL/CriticalSection.h): a
// recursive mutex, as on every Unreal platform. Not Unreal code.
#pragma once

#include <mutex>

class FCriticalSection
{
public:
	FCriticalSection() = default;
	FCriticalSection(const FCriticalSection&) = delete;
	FCriticalSection& operator=(const FCriticalSection&) = delete;
	void Lock() { Mutex.lock(); }
	bool TryLock() { return Mutex.try_lock(); }
	void Unlock() { Mutex.unlock(); }

private:
	std::recursive_mutex Mutex;
};
