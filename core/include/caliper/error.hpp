#pragma once
// Errors are values at every boundary. Parsers throw InputError internally;
// the api layer turns it into {"ok":false,"error":{code,message,path}}.
#include <stdexcept>
#include <string>

namespace caliper {

struct Error {
    std::string code;     // stable, snake_case: "unknown_gpu", "invalid_value", ...
    std::string message;  // English, for people
    std::string path;     // JSON pointer into the request or catalog ("/gpu")
};

class InputError : public std::runtime_error {
public:
    explicit InputError(Error error)
        : std::runtime_error(error.path + ": " + error.message), error_(std::move(error)) {}
    const Error& error() const { return error_; }

private:
    Error error_;
};

[[noreturn]] inline void fail(std::string code, std::string path, std::string message) {
    throw InputError(Error{std::move(code), std::move(message), std::move(path)});
}

}  // namespace caliper
