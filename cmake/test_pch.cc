// The translation unit that builds the test executables' shared
// precompiled header (see ksched_test_pch in cmake/ksched.cmake).
