/// draft-irtf-cfrg-cpace, appendix "Test vector for CPace using group
/// ristretto255 and hash SHA-512", in lowercase hex: checked against
/// chatcli's CPace (PAKETests) and the web page's (BrowserPAKETests), so
/// both run the same arithmetic on the same vectors.
public enum CPaceVectors {
    /// `PRS` = "Password".
    public static let prs = "Password"
    public static let ci = "0b415f696e69746961746f720b425f726573706f6e646572"
    public static let sid = "7e4b4791d6a8ef019b936c79fb7f2c57"
    public static let generatorStringLength = 170
    public static let generatorStringHash =
        "da6d3ddc8802fca9058755ffd3ebde08a9c2c74945901a258482a288b6663af06bf645c93cd1c51512307199c80e84908916d983b34af77205f90851a657ee27"
    public static let generator = "222b6b195fe84b1652badb6f6a3ae3d24341e7306967f0b8115b40d5698c7e56"
    /// The scalars ya and yb.
    public static let ya = "da3d23700a9e5699258aef94dc060dfda5ebb61f02a5ea77fad53f4ff0976d08"
    public static let yb = "d2316b454718c35362d83d69df6320f38578ed5984651435e2949762d900b80d"
    /// The shares Ya = ya·g and Yb = yb·g.
    public static let sharedYa = "d6bac480f2c386c394efc7c47adb9925dcd2630b64f240c50f8d0eec482b9157"
    public static let sharedYb = "3ea7e0b19560d7c0b0f5734f63b955286dfa8232b5ebe63324e2d9e7433f7258"
    public static let k = "80b69a8a76457ab6a4d7f887a4bf6b55a2f80ac19c333f917a05fc9887c8b40f"
    /// ADa and ADb, as UTF-8.
    public static let ada = "ADa"
    public static let adb = "ADb"
    public static let iskIR =
        "b69effbf61b51d56401c0f65601abe428de8206feaaf0e32198896dcae7b35cd2b38950a39dfd5d4a79164614c2984f7daa460b588c1e80c3fa2068af7900447"
    public static let iskOC =
        "544199d71f62f8d9a1fee55727e24fe4a45844593c2b6013c4fa3969d0e5debb2244675c0b43397cbb68d342b01fc0f98fc961469a25134de9f0f813c1a57476"
    /// `scalar_mult_vfy`: a valid product, then encodings that must give G.I.
    public static let multiplyScalar = "7cd0e075fa7955ba52c02759a6c90dbbfc10e6d40aea8d283e407d88cf538a05"
    public static let multiplyPoint = "2c3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c"
    public static let multiplyProduct = "7c13645fe790a468f62c39beb7388e541d8405d1ade69d1778c5fe3e7f6b600e"
    public static let invalidPoint = "2b3c6b8c4f3800e7aef6864025b4ed79bd599117e427c41bd47d93d654b4a51c"
    public static let neutralPoint = String(repeating: "00", count: 32)
}
