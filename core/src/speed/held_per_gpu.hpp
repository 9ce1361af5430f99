#pragma once
// Figures of one GPU per engine and weight format, held while a matrix
// column is worked out: the matrix asks them for every model of the column,
// and each is the same for all of them. `Make` works an entry out; the
// entry type carries its `engine` and `format`.
#include "caliper/gpu.hpp"
#include "caliper/scenario.hpp"
#include "per_thread.hpp"

namespace caliper {

// While alive, the entries of `gpu` (that very object) are worked out once
// per engine and weight format and read back through lookup(). The GPU and
// the calibration table must not change meanwhile. Scopes nest: the
// innermost holder answers.
template <class Entry, Entry (*Make)(Engine, WeightFormat, const GpuSpec&), int Size>
class HeldPerGpu {
public:
    explicit HeldPerGpu(const GpuSpec& gpu) : gpu_(&gpu), previous_(top()) { top() = this; }
    ~HeldPerGpu() { top() = previous_; }
    HeldPerGpu(const HeldPerGpu&) = delete;
    HeldPerGpu& operator=(const HeldPerGpu&) = delete;

    // The innermost holder's entry for this engine and format on `gpu`,
    // worked out on first use; null where no holder is alive, `gpu` is not
    // the held object (nor its copy, below) or the table is full.
    static Entry* lookup(Engine engine, WeightFormat format, const GpuSpec& gpu) {
        return top() ? top()->find(engine, format, gpu) : nullptr;
    }

    // While alive, `copy`, an unchanged copy of the held GPU `original` (a
    // scenario the planner resolved copies it), reads the same entries.
    // Nothing where `original` is not held.
    class Copy {
    public:
        Copy(const GpuSpec& original, const GpuSpec& copy)
            : held_(top() && top()->gpu_ == &original ? top() : nullptr) {
            if (!held_) return;
            previous_ = held_->copy_;
            held_->copy_ = &copy;
        }
        ~Copy() {
            if (held_) held_->copy_ = previous_;
        }
        Copy(const Copy&) = delete;
        Copy& operator=(const Copy&) = delete;

    private:
        HeldPerGpu* held_;
        const GpuSpec* previous_ = nullptr;
    };

private:
    Entry* find(Engine engine, WeightFormat format, const GpuSpec& gpu) {
        if (&gpu != gpu_ && &gpu != copy_) return nullptr;
        for (int i = 0; i < size_; ++i) {
            if (entries_[i].engine == engine && entries_[i].format == format) return &entries_[i];
        }
        if (size_ == Size) return nullptr;
        top() = nullptr;  // `Make` works the entry out afresh, not from this table
        entries_[size_] = Make(engine, format, gpu);
        top() = this;
        return &entries_[size_++];
    }

    static HeldPerGpu*& top() {
        static CALIPER_PER_THREAD HeldPerGpu* held = nullptr;
        return held;
    }

    const GpuSpec* gpu_;
    const GpuSpec* copy_ = nullptr;
    Entry entries_[Size] = {};
    int size_ = 0;
    HeldPerGpu* previous_;
};

}  // namespace caliper
