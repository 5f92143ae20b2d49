// SPDX-License-Identifier: BSD-3-Clause
#include "cuda/multi_gpu/device_workers.hpp"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "cuda/common/check.hpp"

namespace batchsvd::cuda {
namespace {

class Worker {
public:
    explicit Worker(int device) : device_(device), thread_([this] { loop(); }) { thread_.detach(); }

    std::future<void> submit(std::function<void(cudaStream_t)> job) {
        std::packaged_task<void()> task([this, job = std::move(job)] { job(stream()); });
        std::future<void> done = task.get_future();
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            queue_.push_back(std::move(task));
        }
        ready_.notify_one();
        return done;
    }

private:
    /// The worker's stream, made on its first job (an error then fails that job only).
    cudaStream_t stream() {
        if (!stream_) BATCHSVD_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        return stream_;
    }

    void loop() {
        bool device_set = false;
        for (;;) {
            std::packaged_task<void()> task;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                ready_.wait(lock, [this] { return !queue_.empty(); });
                task = std::move(queue_.front());
                queue_.pop_front();
            }
            if (!device_set) device_set = cudaSetDevice(device_) == cudaSuccess;
            if (!device_set) {  // (the job then reports the failure through its own checks)
                (void)cudaGetLastError();
            }
            task();  // its exception goes to its future
        }
    }

    int device_;
    cudaStream_t stream_ = nullptr;
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::packaged_task<void()>> queue_;
    std::thread thread_;
};

}  // namespace

std::future<void> run_on_device_worker(int device, std::function<void(cudaStream_t)> job) {
    static std::mutex mutex;
    static auto* workers = new std::map<int, std::unique_ptr<Worker>>();  // never destroyed (above)
    Worker* w = nullptr;
    {
        const std::lock_guard<std::mutex> lock(mutex);
        auto& slot = (*workers)[device];
        if (!slot) slot = std::make_unique<Worker>(device);
        w = slot.get();
    }
    return w->submit(std::move(job));
}

}  // namespace batchsvd::cuda
