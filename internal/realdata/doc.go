// Package realdata finds the real data sets (MNIST, Yale B, ETH-80, the UCI
// digits) for the tests and benchmarks that need them, or skips them: the
// one helper the packages' test files share.
//
// The data folder is $GRLGQ_DATA when it is set (CI sets it), else the
// first shared/data found walking up from the working directory (a test
// runs in its package's folder, so a checkout beside shared/ needs no
// setting). Dir returns it once every path the test needs exists under it;
// otherwise it skips the test (t.Skip) with a message naming what is
// missing and GRLGQ_DATA. A test never fails because the data are absent.
//
// The package imports only the standard library (testing among it): only
// test files import it.
package realdata
